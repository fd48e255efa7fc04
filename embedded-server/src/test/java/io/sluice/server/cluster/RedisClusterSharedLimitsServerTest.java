package io.sluice.server.cluster;

import io.sluice.server.testkit.RedisUnderTest;
import io.sluice.server.testkit.TestRedisCluster;

/** Two real front ends started with {@code --redis redis-cluster://...} (3 masters) share one client's hit stack. */
class RedisClusterSharedLimitsServerTest extends SharedLimitsServerTest {

    @Override
    RedisUnderTest newRedis() {
        return TestRedisCluster.start(3, 0);
    }
}
