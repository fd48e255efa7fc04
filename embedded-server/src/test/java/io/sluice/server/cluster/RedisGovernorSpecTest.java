package io.sluice.server.cluster;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.InstantSource;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The governor's specification on the cluster's ledger: a cluster node's governor whose every domain lives in
 * {@code governor.lua} on a real redis-server, judged on the test's clock. The node is patient (a 1 s deadline,
 * 3 s of silence before Redis counts as unreachable), so a loaded machine does not make it pace alone.
 */
class RedisGovernorSpecTest extends GovernorSpecification {
    private static TestRedis redis;
    private ClusterFixture cluster;

    @BeforeAll
    static void startRedis() {
        redis = TestRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void clean() {
        redis.reset();
        cluster = new ClusterFixture(redis);
    }

    @AfterEach
    void stopNodes() {
        cluster.close();
    }

    @Override
    CrawlGovernor build(InstantSource clock, Supplier<GovernorPolicy> policy) {
        ClusterNode node = cluster.node("a", new ClusterFixture.FixedLoad(0), ClusterFixture.PATIENT);
        ClusterFixture.awaitState(node, ClusterState.HEALTHY);
        CrawlGovernor governor = new CrawlGovernor(clock, policy, new SplittableRandom(42), 1_000, Map.of());
        governor.shareWith(RedisDomainLedger.of(node, ClusterFixture.PATIENT, Runnable::run, clock));
        return governor;
    }

    @Override
    Pacing.Mode judgedBy() {
        return Pacing.Mode.CLUSTER;
    }
}
