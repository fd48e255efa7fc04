package io.sluice.server.cluster;

import org.junit.jupiter.api.BeforeAll;

/** Automatic bans between nodes on a 3-master Redis Cluster: the policy's log and bans in the fleet's slot. */
class RedisClusterAutomaticBansTest extends ClusterAutomaticBansTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
