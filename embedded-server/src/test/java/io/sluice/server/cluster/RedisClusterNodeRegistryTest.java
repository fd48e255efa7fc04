package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fleet's registry with the nodes on a 3-master Redis Cluster: every node's hash and the registry share the
 * {@code {fleet}} slot, so {@code nodes-read.lua} may read the hashes it finds.
 *
 * <p>Only the tests marked {@link DiffersOnACluster} run here (the others judge one slot's keys with one script, as on
 * one Redis, where the parent class runs them).
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterNodeRegistryTest extends NodeRegistryTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }

    @Test
    @Disabled("kills the one redis-server; a Redis Cluster losing a master: RedisClusterFailoverTest")
    @Override
    void whenRedisIsGoneTheViewIsTheLastOneReadMarkedStale() {
    }
}
