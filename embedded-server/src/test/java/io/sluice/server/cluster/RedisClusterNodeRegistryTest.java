package io.sluice.server.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The fleet's registry with the nodes on a 3-master Redis Cluster: every node's hash and the registry share the
 * {@code {fleet}} slot, so {@code nodes-read.lua} may read the hashes it finds.
 */
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
