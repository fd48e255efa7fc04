package io.sluice.server.cluster;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.policy.GovernorPolicy;
import java.time.InstantSource;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/** The governor's specification on a single node: every domain's state in the engine's own domain states. */
class LocalGovernorSpecTest implements GovernorSpecification {
    private final Subject subject = new Subject();

    @Override
    public CrawlGovernor build(InstantSource clock, Supplier<GovernorPolicy> policy) {
        return new CrawlGovernor(clock, policy, new SplittableRandom(42), 1_000, Map.of());
    }

    @Override
    public Pacing.Mode judgedBy() {
        return Pacing.Mode.LOCAL;
    }

    @Override
    public Subject subject() {
        return subject;
    }
}
