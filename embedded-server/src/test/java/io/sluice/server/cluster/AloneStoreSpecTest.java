package io.sluice.server.cluster;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import java.time.Duration;

/**
 * The specification on a cluster node deciding alone: its Redis store is not reachable (never attached here), and
 * the only node it has seen is itself, so its limits are the policy's. This is the engine's degraded path.
 */
class AloneStoreSpecTest extends ClientStoreSpecification {
    private ThrottleEngine engine;

    @Override
    ThrottleEngine node(String name, Policy policy) {
        if (engine == null) {
            engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CLASSIFIER, null,
                    new RedisClientStateStore(ClusterFixture.SETTINGS, Duration.ofSeconds(35)));
        }
        return engine;
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
