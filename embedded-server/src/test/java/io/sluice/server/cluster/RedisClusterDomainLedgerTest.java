package io.sluice.server.cluster;

import org.junit.jupiter.api.BeforeAll;

/** governor.lua's rules through the ledger, with the domains' hashes spread over a 3-master Redis Cluster. */
class RedisClusterDomainLedgerTest extends RedisDomainLedgerTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
