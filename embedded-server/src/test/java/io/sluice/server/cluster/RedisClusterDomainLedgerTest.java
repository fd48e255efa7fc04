package io.sluice.server.cluster;

import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * governor.lua's rules through the ledger, with the domains' hashes spread over a 3-master Redis Cluster.
 *
 * <p>Only the tests marked {@link DiffersOnACluster} run here (the others judge one slot's keys with one script, as on
 * one Redis, where the parent class runs them).
 */
@ExtendWith(DiffersOnACluster.Only.class)
class RedisClusterDomainLedgerTest extends RedisDomainLedgerTest {

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }
}
