package io.sluice.server.cluster;

import org.junit.jupiter.api.BeforeAll;

/** The shared policy's tests with the nodes on a 3-master Redis Cluster: its keys share the fleet's slot. */
class RedisClusterSharedPolicyTest extends SharedPolicyTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
