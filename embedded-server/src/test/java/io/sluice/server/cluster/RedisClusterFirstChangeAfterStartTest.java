package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The first change after start on a 3-master Redis Cluster, where the issue measured it late. */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterFirstChangeAfterStartTest extends FirstChangeAfterStartTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
