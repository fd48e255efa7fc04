package io.sluice.server.cluster;

/** The per-client rules' specification with every node's store on a 3-master Redis Cluster. */
class RedisClusterStoreSpecTest extends RedisStoreSpecTest {

    @org.junit.jupiter.api.BeforeAll
    static void startRedis() {
        OneRedisPerClassHolder.redis = TestRedisCluster.start(3, 0);
    }
}
