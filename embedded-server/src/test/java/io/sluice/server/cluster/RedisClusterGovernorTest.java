package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The crawl governor of two real front ends on a 3-master Redis Cluster: each domain's hash in its own slot.
 *
 * <p>Only the tests marked {@link DiffersOnACluster} run here (the others judge one slot's keys with one script, as on
 * one Redis, where the parent class runs them).
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterGovernorTest extends ClusterGovernorTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        sharedRedis = TestRedisCluster.start(3, 0);
    }

    @Test
    @Disabled("kills the one redis-server; a Redis Cluster losing a master: RedisClusterFailoverTest")
    @Override
    void withRedisGoneEachNodeGrantsOnItsShareOfThePaceWithinTheDeadlineAndSaysSo() {
    }

    @Test
    @Disabled("hangs the one redis-server")
    @Override
    void withRedisHungAPermitIsAnsweredAtTheDeadlineOnTheLocalPace() {
    }
}
