package io.sluice.server.cluster;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/** The specification on a single node's local store: every "node" is the one engine. */
class LocalStoreSpecTest extends ClientStoreSpecification {
    private ThrottleEngine engine;

    @Override
    ThrottleEngine startNode(String name, Policy policy) {
        if (engine == null) {
            engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CLASSIFIER);
        }
        return engine;
    }

    @Override
    Collection<ThrottleEngine> nodes() {
        return engine == null ? List.of() : List.of(engine);
    }

    @Override
    void passTime(Duration duration) {
        clock.advance(duration);
    }

    @Override
    void alignToASecond() {
        // the clock starts 50 ms into a second and moves only when told
    }
}
