package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;

/** The cluster's cap on domains with their hashes spread over a 3-master Redis Cluster, the count on one of them. */
class RedisClusterDomainCapTest extends RedisDomainCapTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
