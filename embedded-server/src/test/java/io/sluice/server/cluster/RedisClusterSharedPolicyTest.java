package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shared policy's tests with the nodes on a 3-master Redis Cluster: its keys share the fleet's slot.
 *
 * <p>Only the tests marked {@link DiffersOnACluster} run here (the others judge one slot's keys with one script, as on
 * one Redis, where the parent class runs them).
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterSharedPolicyTest extends SharedPolicyTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
