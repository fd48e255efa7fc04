package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The cluster's pass key ring on a 3-master Redis Cluster: its hash in the fleet's slot, like the policy's keys. */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterPassKeysTest extends ClusterPassKeysRedisTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
