package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.BanChange;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 50, item 6: expired automatic bans do not pile up in the cluster's bans hash. Before, each removal left a
 * tombstone there until an operator's edit wrote the whole policy again; a quiet cluster with a ban storm a day grew
 * the hash (and every node's catch-up read of it) without bound.
 */
class ExpiredBansTombstonesTest extends OneRedisPerClass {
    private static final String BANS = ClusterSettings.DEFAULTS.fleetKey("policy:bans");

    private static Ban expired(String id) {
        Instant past = Instant.now().minusSeconds(60);
        return new Ban(id, BanType.IP, "198.51.100.7", "escalation", "sluice", past.minusSeconds(60), past);
    }

    /**
     * A node's policy in memory that takes batches of bans as LocalPolicyMirror does, and as the engine does, never a
     * version older than the one it runs (the follower's first read can arrive after this node's own first change).
     */
    private static final class BansListener implements PolicyListener {
        private volatile Policy current = Policy.defaults();

        @Override
        public Policy current() {
            return current;
        }

        @Override
        public synchronized void apply(PolicyChange change) {
            if (change.version() > current.version()) {
                current = change.isBans() ? change.bans().applyTo(current).withVersion(change.version())
                        : change.policy();
            }
        }
    }

    private static long held() throws Exception {
        return Long.parseLong(server.command("HLEN", BANS));
    }

    private ClusterNode seeded(BansListener listener) {
        ClusterNode node = cluster.node("a");
        node.policy().follow(listener);
        await(() -> !node.policy().joining(), "a to follow the cluster's policy");
        return node;
    }

    @Test
    void aBanMadeSinceTheDocumentLeavesNothingBehindWhenItExpires() throws Exception {
        BansListener listener = new BansListener();
        ClusterNode a = seeded(listener);
        Ban ban = expired("auto-1");

        SharedPolicy.Outcome addition = a.policy().addBans(new BanChange(List.of(ban), List.of()));
        assertThat(addition).isInstanceOf(SharedPolicy.BansApplied.class);
        long added = ((SharedPolicy.BansApplied) addition).version();
        assertThat(held()).isEqualTo(1);
        assertThat(listener.current().bans()).extracting(Ban::id).containsExactly("auto-1");
        SharedPolicy.Outcome removal = a.policy().addBans(new BanChange(List.of(), List.of(ban)));

        // The removal is a new version; which of this call and the node's follower hands it to the node first is a
        // race (the follower reads the log at once), so what it removed is checked on the node, not on the answer.
        assertThat(removal).isInstanceOfSatisfying(SharedPolicy.BansApplied.class,
                applied -> assertThat(applied.version()).isEqualTo(added + 1));
        assertThat(listener.current().version()).isEqualTo(added + 1);
        assertThat(held()).as("the bans hash, once the ban expired").isZero();
        assertThat(listener.current().bans()).isEmpty();
        assertThat(a.policy().document().get(10, TimeUnit.SECONDS).bans()).isEmpty();
        // Every node asks for the removal when it sees the ban expire: the second asks for nothing.
        long version = listener.current().version();
        assertThat(a.policy().addBans(new BanChange(List.of(), List.of(ban)))).isInstanceOfSatisfying(
                SharedPolicy.BansApplied.class, applied -> assertThat(applied.made().removed()).isEmpty());
        assertThat(held()).isZero();
        assertThat(listener.current().version()).isEqualTo(version);
    }

    @Test
    void aBanTheDocumentHoldsKeepsOneTombstoneUntilTheNextWholePolicy() throws Exception {
        BansListener listener = new BansListener();
        ClusterNode a = seeded(listener);
        Ban ban = expired("auto-2");
        a.policy().addBans(new BanChange(List.of(ban), List.of()));
        // An operator's edit writes the whole policy, the ban in it, and empties the hash.
        Policy current = listener.current();
        assertThat(a.policy().compareAndSet(current.version(), SharedPolicyTest.withMaxHits(current, 9),
                SharedPolicyTest.audit("alice", "maxHits 9"))).isInstanceOf(SharedPolicy.Applied.class);
        assertThat(held()).isZero();

        a.policy().addBans(new BanChange(List.of(), List.of(ban)));

        assertThat(held()).as("the removal of a ban the document holds").isEqualTo(1);
        assertThat(a.policy().document().get(10, TimeUnit.SECONDS).bans()).isEmpty();
        assertThat(listener.current().bans()).isEmpty();
        a.policy().addBans(new BanChange(List.of(), List.of(ban)));
        assertThat(held()).as("asked again: still one").isEqualTo(1);
    }
}
