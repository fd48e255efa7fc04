package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.ClusterStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A node takes the cluster's versions as they are, newer only; the snapshot says how it stands. */
class AdoptPolicyTest {
    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(),
            new ManualClock(Instant.parse("2025-01-01T00:00:00Z")), Policy.defaults(), new FakeClassifier());
    /** The engine's one writer, as an embedder of the bare engine holds it (no audit: that is the embedder's). */
    private final PolicyWriter writer = engine.claimPolicyWriter();

    private static Policy maxHits(int hits, long version) {
        return Policy.defaults().withHitStack(new Policy.HitStack(15, hits)).withVersion(version);
    }

    @Test
    void aNewerVersionIsInstalledWithItsOwnVersionNumber() {
        assertThat(writer.adopt(maxHits(4, 7))).isTrue();

        assertThat(engine.policy().version()).isEqualTo(7);
        assertThat(engine.policy().hitStack().maxHits()).isEqualTo(4);
    }

    @Test
    void aVersionAtOrBelowTheLiveOneChangesNothing() {
        writer.adopt(maxHits(4, 7));

        assertThat(writer.adopt(maxHits(20, 7))).isFalse();
        assertThat(writer.adopt(maxHits(20, 3))).isFalse();
        assertThat(engine.policy().hitStack().maxHits()).isEqualTo(4);
    }

    @Test
    void anInvalidVersionIsRefusedWhole() {
        assertThatThrownBy(() -> writer.adopt(maxHits(-1, 9))).isInstanceOf(PolicyValidationException.class);
        assertThat(engine.policy().version()).isEqualTo(1);
    }

    @Test
    void theSnapshotSaysStandaloneUntilTheServerReportsACluster() {
        assertThat(engine.snapshot().cluster()).isEqualTo(ClusterStatus.standalone(0));

        engine.reportClusterStatus(() -> new ClusterStatus("web-1", ClusterState.DEGRADED, 3, 17));

        assertThat(engine.snapshot().cluster()).isEqualTo(new ClusterStatus("web-1", ClusterState.DEGRADED, 3, 17));
    }
}
