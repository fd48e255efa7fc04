package io.sluice.server.cluster;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.InstantSource;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The governor's specification on the cluster's ledger: a cluster node's governor whose every domain lives in
 * {@code governor.lua} on a real redis-server, judged on the test's clock. The node is patient (a 1 s deadline,
 * 3 s of silence before Redis counts as unreachable), so a loaded machine does not make it pace alone.
 */
class RedisGovernorSpecTest extends OneRedisPerClass implements GovernorSpecification {
    private final Subject subject = new Subject();

    @Override
    public CrawlGovernor build(InstantSource clock, Supplier<GovernorPolicy> policy) {
        ClusterNode node = cluster.node("a", new ClusterFixture.FixedLoad(0), ClusterFixture.PATIENT);
        ClusterFixture.awaitState(node, ClusterState.HEALTHY);
        CrawlGovernor governor = new CrawlGovernor(clock, policy, new SplittableRandom(42), 1_000, Map.of());
        governor.shareWith(RedisDomainLedger.of(node, ClusterFixture.PATIENT, Runnable::run, clock));
        return governor;
    }

    @Override
    public Pacing.Mode judgedBy() {
        return Pacing.Mode.CLUSTER;
    }

    @Override
    public Subject subject() {
        return subject;
    }
}
