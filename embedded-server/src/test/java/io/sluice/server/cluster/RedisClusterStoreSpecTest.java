package io.sluice.server.cluster;

import org.junit.jupiter.api.BeforeAll;

/** The per-client rules' specification with every node's store on a 3-master Redis Cluster. */
class RedisClusterStoreSpecTest extends RedisStoreSpecTest {

    @BeforeAll
    static void startRedis() {
        OneRedisPerClassHolder.redis = TestRedisCluster.start(3, 0);
    }
}
