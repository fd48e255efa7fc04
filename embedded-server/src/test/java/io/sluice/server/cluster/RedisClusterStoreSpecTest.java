package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.TestRedis;
import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The per-client rules' specification with every node's store on a 3-master Redis Cluster.
 *
 * <p>Only the tests marked {@link DiffersOnACluster} run here (the others judge one slot's keys with one script, as on
 * one Redis, where the parent class runs them).
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterStoreSpecTest extends RedisStoreSpecTest {

    @BeforeAll
    static void startRedis() {
        OneRedisPerClassHolder.redis = TestRedisCluster.start(3, 0);
    }

    @Test
    @DiffersOnACluster("the scripts loaded as functions on every master")
    void aNodeLoadsItsFunctionsOnEveryMaster() {
        startNode("a", Policy.defaults());

        // a client's keys may be on any master: each must have every per-request script
        for (TestRedis master : ((TestRedisCluster) OneRedisPerClassHolder.redis).masters()) {
            Await.await(() -> {
                try {
                    return master.info("memory", "number_of_libraries:") >= 4;
                } catch (Exception e) {
                    return false;
                }
            }, "the per-request scripts loaded as functions on the master at port " + master.port());
        }
    }
}
