package io.sluice.server.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.PolicyWriter;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An edit read on one node of a cluster and sent to another that has not taken that version yet (a few
 * milliseconds behind) is merged once this node has it, not refused as "no longer known".
 */
class PolicyChangesCatchUpTest {
    private static final PolicyChanges.Author ALICE = new PolicyChanges.Author("admin", "alice");

    private final ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
            Policy.defaults(), CrawlerListClassifier.bundled());
    /** The engine's one writer: the changes' and, in the store, the mirror's of a cluster node. */
    private final PolicyWriter writer = engine.claimPolicyWriter();
    /** Version 2, made through another node: maxHits 7. */
    private final Policy elsewhere = withMaxHits(engine.policy(), 7).withVersion(engine.policy().version() + 1);

    private static Policy withMaxHits(Policy policy, int maxHits) {
        return policy.withHitStack(new Policy.HitStack(policy.hitStack().windowSeconds(), maxHits));
    }

    /** Records commits; {@link #catchUp} is this node's follower taking the other node's version. */
    private final class FollowingStore implements PolicyStore {
        final List<Long> caughtUpTo = new ArrayList<>();
        boolean follows = true;

        @Override
        public AuditEntry commit(Policy current, Policy next, AuditEntry entry) {
            return entry;
        }

        @Override
        public Optional<Policy> version(long version) {
            return version == elsewhere.version() ? Optional.of(elsewhere) : Optional.empty();
        }

        @Override
        public void catchUp(long version) {
            caughtUpTo.add(version);
            if (follows) {
                writer.adopt(elsewhere);
            }
        }
    }

    @Test
    void anEditBasedOnAVersionThisNodeHasNotTakenYetWaitsForItThenApplies() {
        FollowingStore store = new FollowingStore();
        PolicyChanges changes = new PolicyChanges(writer, store, InstantSource.system());
        Policy edited = elsewhere.withHitStack(new Policy.HitStack(30, 7));

        Policy installed = changes.replace(ALICE, elsewhere.version(), edited);

        assertThat(store.caughtUpTo).containsExactly(elsewhere.version());
        assertThat(installed.version()).isEqualTo(elsewhere.version() + 1);
        assertThat(installed.hitStack()).isEqualTo(new Policy.HitStack(30, 7));
        assertThat(engine.policy()).isEqualTo(installed);
    }

    @Test
    void aVersionNoNodeMadeStaysUnknownA412AndChangesNothing() {
        FollowingStore store = new FollowingStore();
        store.follows = false;
        PolicyChanges changes = new PolicyChanges(writer, store, InstantSource.system());
        Policy before = engine.policy();

        assertThatThrownBy(() -> changes.replace(ALICE, before.version() + 5, withMaxHits(before, 3)))
                .isInstanceOf(PolicyConflict.class).hasMessageContaining("no longer known");
        assertThat(engine.policy()).isEqualTo(before);
    }

    @Test
    void anEditFromTheLiveVersionDoesNotWait() {
        FollowingStore store = new FollowingStore();
        PolicyChanges changes = new PolicyChanges(writer, store, InstantSource.system());

        changes.replace(ALICE, engine.policy().version(), withMaxHits(engine.policy(), 3));

        assertThat(store.caughtUpTo).isEmpty();
        assertThat(engine.policy().hitStack().maxHits()).isEqualTo(3);
    }
}
