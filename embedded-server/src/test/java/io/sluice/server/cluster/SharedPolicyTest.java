package io.sluice.server.cluster;

import io.sluice.server.OwnThread;
import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** One policy for the cluster: several nodes in this JVM sharing one real redis-server. */
class SharedPolicyTest extends OneRedisPerClass {
    static Policy withMaxHits(Policy base, int maxHits) {
        return base.withHitStack(new Policy.HitStack(base.hitStack().windowSeconds(), maxHits));
    }

    static AuditEntry audit(String who, String detail) {
        return new AuditEntry(Instant.parse("2025-01-01T00:00:00Z"), who, "policy.replace", detail, null, null);
    }

    /** A node following the cluster from the default policy, once Redis holds the document. */
    private MemoryListener follow(ClusterNode node) {
        MemoryListener listener = new MemoryListener(Policy.defaults());
        node.policy().follow(listener);
        return listener;
    }

    private static SharedPolicy.Outcome casUntilAnswered(ClusterNode node, long expected, Policy policy,
                                                         AuditEntry audit) {
        SharedPolicy.Outcome[] outcome = new SharedPolicy.Outcome[1];
        await(() -> !((outcome[0] = node.policy().compareAndSet(expected, policy, audit))
                instanceof SharedPolicy.Unavailable), node.name() + " to reach Redis");
        return outcome[0];
    }

    @Test
    @DiffersOnACluster("the policy and its log on the fleet slot's master, followed through the cluster")
    void aChangeMadeOnOneNodeIsAppliedOnEveryNodeOnceWithItsAuditEntry() {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        ClusterNode c = cluster.node("c");
        MemoryListener onA = follow(a);
        MemoryListener onB = follow(b);
        MemoryListener onC = follow(c);

        SharedPolicy.Outcome outcome = casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 7),
                audit("alice", "maxHits 10 -> 7"));

        assertThat(outcome).isInstanceOfSatisfying(SharedPolicy.Applied.class,
                applied -> assertThat(applied.policy().version()).isEqualTo(2));
        // The node that made the change has it before compareAndSet returns.
        assertThat(onA.current().hitStack().maxHits()).isEqualTo(7);
        await(() -> onB.current().version() == 2 && onC.current().version() == 2, "b and c to apply version 2");
        for (MemoryListener node : List.of(onA, onB, onC)) {
            assertThat(node.versions()).containsExactly(2L);
            assertThat(node.current().hitStack().maxHits()).isEqualTo(7);
            assertThat(node.applied.get(0).audit().who()).isEqualTo("alice");
            assertThat(node.applied.get(0).node()).isEqualTo("a");
        }
    }

    @Test
    void aSeriesOfChangesReachesTheOtherNodeInOrderEachOnce() {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        follow(a);
        MemoryListener onB = follow(b);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 30), audit("alice", "first"));
        await(() -> onB.current().version() == 2, "b to follow");

        long[] micros = new long[20];
        for (int i = 0; i < micros.length; i++) {
            long version = 2 + i;
            long start = System.nanoTime();
            assertThat(casUntilAnswered(a, version, withMaxHits(Policy.defaults(), 31 + i), audit("alice", "n" + i)))
                    .isInstanceOf(SharedPolicy.Applied.class);
            await(() -> onB.current().version() == version + 1, "b to apply version " + (version + 1));
            micros[i] = (onB.appliedAtNanos.get(onB.appliedAtNanos.size() - 1) - start) / 1_000;
        }

        assertThat(onB.versions()).doesNotHaveDuplicates().isSorted().hasSize(21);
        Arrays.sort(micros);
        // Informative only (the machine is shared): the 100 ms goal is measured in docs/BENCHMARKS.md's way.
        System.out.printf("policy change to in force on another node: median %d us, max %d us%n",
                micros[micros.length / 2], micros[micros.length - 1]);
    }

    @Test
    void aStaleVersionIsRefusedWhicheverNodeIsAskedAndChangesNothing() {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        MemoryListener onA = follow(a);
        MemoryListener onB = follow(b);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 7), audit("alice", "to 7"));

        // Bob read version 1 before Alice's change, and applies through the other node.
        SharedPolicy.Outcome stale = casUntilAnswered(b, 1, withMaxHits(Policy.defaults(), 20), audit("bob", "to 20"));

        assertThat(stale).isEqualTo(new SharedPolicy.Conflict(2));
        await(() -> onB.current().version() == 2, "b to apply alice's change");
        assertThat(onA.current().hitStack().maxHits()).isEqualTo(7);
        assertThat(onB.current().hitStack().maxHits()).isEqualTo(7);
        assertThat(onB.applied).extracting(change -> change.audit().who()).containsExactly("alice");
    }

    @Test
    void twoNodesRacingFromTheSameVersionCannotBothWin() throws Exception {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        follow(a);
        follow(b);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 9), audit("seed", "to 9"));

        int races = 0;
        for (int tries = 0; races < 20 && tries < 200; tries++) {
            // the version now: a compare-and-set from version 0 is always a conflict naming it
            long base = ((SharedPolicy.Conflict) casUntilAnswered(a, 0, Policy.defaults(), audit("probe", "-")))
                    .currentVersion();
            CompletableFuture<SharedPolicy.Outcome> fromA = CompletableFuture.supplyAsync(() ->
                    a.policy().compareAndSet(base, withMaxHits(Policy.defaults(), 11), audit("a", "race")),
                    OwnThread.EACH);
            CompletableFuture<SharedPolicy.Outcome> fromB = CompletableFuture.supplyAsync(() ->
                    b.policy().compareAndSet(base, withMaxHits(Policy.defaults(), 12), audit("b", "race")),
                    OwnThread.EACH);
            List<SharedPolicy.Outcome> outcomes = List.of(fromA.get(), fromB.get());
            if (outcomes.stream().anyMatch(o -> o instanceof SharedPolicy.Unavailable)) {
                continue; // a node missed its deadline on a busy machine: not a race, run another
            }
            assertThat(outcomes).filteredOn(o -> o instanceof SharedPolicy.Applied).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o instanceof SharedPolicy.Conflict).hasSize(1);
            races++;
        }
        assertThat(races).isEqualTo(20);
    }

    @Test
    void aNodeThatWasAwayCatchesUpOnEveryChangeItMissedInOrder() {
        ClusterNode a = cluster.node("a");
        follow(a);
        ClusterNode c = cluster.node("c");
        MemoryListener onC = follow(c);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 5), audit("alice", "v2"));
        await(() -> onC.current().version() == 2, "c to apply version 2");
        cluster.stop(c);

        for (long version = 2; version < 5; version++) {
            assertThat(a.policy().compareAndSet(version, withMaxHits(Policy.defaults(), (int) version + 10),
                    audit("alice", "v" + (version + 1)))).isInstanceOf(SharedPolicy.Applied.class);
        }
        // c comes back with what it had on disk: version 2.
        MemoryListener back = new MemoryListener(onC.current());
        cluster.node("c").policy().follow(back);

        await(() -> back.current().version() == 5, "c to catch up to version 5");
        assertThat(back.versions()).containsExactly(3L, 4L, 5L);
        assertThat(back.applied).extracting(change -> change.audit().detail()).containsExactly("v3", "v4", "v5");
        assertThat(back.current().hitStack().maxHits()).isEqualTo(14);
    }

    @Test
    @DiffersOnACluster("connections to every master dropped, the fleet slot's found again")
    void droppedConnectionsAreResumedWithoutApplyingAnythingTwice() {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        MemoryListener onA = follow(a);
        MemoryListener onB = follow(b);
        long version = 1;
        for (int round = 0; round < 5; round++) {
            SharedPolicy.Outcome outcome = casUntilAnswered(a, version, withMaxHits(Policy.defaults(), 20 + round),
                    audit("alice", "round " + round));
            assertThat(outcome).isInstanceOf(SharedPolicy.Applied.class);
            version++;
            server.dropClients();
        }
        long last = version;
        await(() -> onB.current().version() == last, "b to catch up after the dropped connections");

        assertThat(onB.versions()).containsExactly(2L, 3L, 4L, 5L, 6L);
        assertThat(onA.versions()).containsExactly(2L, 3L, 4L, 5L, 6L);
    }

    @Test
    void theFirstNodeSeedsAnEmptyRedisWithItsPolicyAndTheHighestVersionWins() {
        ClusterNode old = cluster.node("old");
        MemoryListener onOld = new MemoryListener(Policy.defaults().withVersion(3));
        old.policy().follow(onOld);
        await(() -> seeded() == 3, "the first node to seed version 3");

        ClusterNode newer = cluster.node("newer");
        newer.policy().follow(new MemoryListener(withMaxHits(Policy.defaults(), 4).withVersion(8)));

        await(() -> seeded() == 8, "the newer node to raise the document to version 8");
        await(() -> onOld.current().version() == 8, "the old node to take version 8");
        assertThat(onOld.current().hitStack().maxHits()).isEqualTo(4);
        assertThat(onOld.applied.get(0).audit()).as("a seed is no operator's action").isNull();
    }

    @Test
    void aChangeOnAnEmptiedRedisSeedsItFromTheNodesPolicyThenAppliesItOnEveryNodeInOneHistory() throws Exception {
        // Followers that look at the document only after a minute of quiet: none of them puts the policy back.
        ClusterSettings unhurried = new ClusterSettings(ClusterFixture.SETTINGS.deadline(),
                ClusterFixture.SETTINGS.adminDeadline(), ClusterFixture.SETTINGS.heartbeat(),
                ClusterFixture.SETTINGS.recoverAfter(), ClusterFixture.SETTINGS.unreachableAfter(),
                ClusterFixture.SETTINGS.nodeTtl(), Duration.ofMinutes(1), ClusterFixture.SETTINGS.logLength(),
                ClusterFixture.SETTINGS.keyPrefix());
        ClusterNode a = cluster.node("a", new ClusterFixture.FixedLoad(0), unhurried);
        ClusterNode b = cluster.node("b", new ClusterFixture.FixedLoad(0), unhurried);
        MemoryListener onA = follow(a);
        MemoryListener onB = follow(b);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 7), audit("alice", "to 7"));
        await(() -> onB.current().version() == 2, "b to apply version 2");

        server.reset(); // as a Redis restarted with no persistence: no document, no log, no scripts
        SharedPolicy.Outcome outcome = a.policy().compareAndSet(2, withMaxHits(Policy.defaults(), 5),
                audit("bob", "to 5"));

        assertThat(outcome).isInstanceOfSatisfying(SharedPolicy.Applied.class,
                applied -> assertThat(applied.policy().version()).isEqualTo(3));
        assertThat(onA.current().hitStack().maxHits()).isEqualTo(5);
        await(() -> onB.current().version() == 3, "b to apply version 3");
        assertThat(onB.current().hitStack().maxHits()).isEqualTo(5);
        for (MemoryListener node : List.of(onA, onB)) {
            assertThat(node.versions()).containsExactly(2L, 3L);
            assertThat(node.applied.get(1).audit().who()).isEqualTo("bob");
        }
        assertThat(seeded()).isEqualTo(3);
        assertThat(server.command("HGET", ClusterFixture.SETTINGS.fleetKey("policy"), "epoch"))
                .as("a seeded document has an epoch").isNotNull();
        assertThat(server.command("XLEN", ClusterFixture.SETTINGS.fleetKey("policy:log")))
                .as("the log starts over: the seed (version 2), then the change").isEqualTo("2");
    }

    @Test
    void twoNodesChangingAnEmptiedRedisAtOnceLoseNoChange() throws Exception {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        MemoryListener onA = follow(a);
        MemoryListener onB = follow(b);
        casUntilAnswered(a, 1, withMaxHits(Policy.defaults(), 7), audit("alice", "to 7"));
        await(() -> onB.current().version() == 2, "b to apply version 2");

        server.reset();
        CompletableFuture<SharedPolicy.Outcome> fromA = CompletableFuture.supplyAsync(() ->
                a.policy().compareAndSet(2, withMaxHits(Policy.defaults(), 11), audit("a", "race")), OwnThread.EACH);
        CompletableFuture<SharedPolicy.Outcome> fromB = CompletableFuture.supplyAsync(() ->
                b.policy().compareAndSet(2, withMaxHits(Policy.defaults(), 12), audit("b", "race")), OwnThread.EACH);
        List<SharedPolicy.Outcome> outcomes = List.of(fromA.get(), fromB.get());

        // Whichever seeded, one change won on version 2 and the other was told of it: none was lost unsaid.
        assertThat(outcomes).filteredOn(SharedPolicy.Applied.class::isInstance).hasSize(1);
        assertThat(outcomes).filteredOn(SharedPolicy.Conflict.class::isInstance)
                .containsExactly(new SharedPolicy.Conflict(3));
        int won = ((SharedPolicy.Applied) outcomes.stream().filter(SharedPolicy.Applied.class::isInstance)
                .findFirst().orElseThrow()).policy().hitStack().maxHits();
        await(() -> onA.current().version() == 3 && onB.current().version() == 3, "both nodes to apply version 3");
        assertThat(onA.current().hitStack().maxHits()).isEqualTo(won);
        assertThat(onB.current().hitStack().maxHits()).isEqualTo(won);
        assertThat(seeded()).isEqualTo(3);
    }

    private static long seeded() {
        try {
            String version = server.command("HGET", ClusterFixture.SETTINGS.fleetKey("policy"), "version");
            return version == null ? 0 : Long.parseLong(version);
        } catch (IOException e) {
            return -1;
        }
    }

}
