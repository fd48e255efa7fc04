package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis killed, hung, restarted empty, its connections dropped: the nodes never wait for it longer than the
 * deadline, say DEGRADED, and recover by themselves. Each test has a redis-server of its own.
 */
@RealParts
class DegradedModeTest {
    /**
     * The request path's deadline is 50 ms; a call must come back within it plus the timer's tick. The bound
     * asserted is far looser only because this machine is shared and loaded: what it rules out is waiting
     * for Redis (a hung Redis would otherwise hold a call for the OS's TCP timeout, minutes).
     */
    private static final Duration CALL_BOUND = Duration.ofSeconds(1);
    /**
     * An operator's call: the admin deadline waiting for a link that is reconnecting, twice more (EVALSHA, then EVAL)
     * and a margin.
     */
    private static final Duration ADMIN_BOUND = ClusterFixture.SETTINGS.adminDeadline().multipliedBy(3)
            .plusSeconds(1);

    private TestRedis redis;
    private ClusterFixture cluster;

    @BeforeEach
    void start() {
        redis = TestRedis.start();
        cluster = new ClusterFixture(redis);
    }

    @AfterEach
    void stop() {
        cluster.close();
        redis.close();
    }

    /** How long one PING on the request path takes to come back, answered or not. */
    private static Duration timedPing(ClusterNode node) throws Exception {
        long start = System.nanoTime();
        CompletableFuture<String> ping = node.requestLink().call(commands -> commands.ping());
        try {
            ping.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
            // timed out or rejected: what matters here is how soon
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static MemoryListener follow(ClusterNode node) {
        MemoryListener listener = new MemoryListener(Policy.defaults());
        node.policy().follow(listener);
        return listener;
    }

    private static List<ClusterState> transitions(ClusterNode node) {
        List<ClusterState> seen = new CopyOnWriteArrayList<>();
        node.onStateChange(seen::add);
        return seen;
    }

    private static SharedPolicy.Outcome change(ClusterNode node, long expected, int maxHits) {
        return node.policy().compareAndSet(expected, SharedPolicyTest.withMaxHits(Policy.defaults(), maxHits),
                SharedPolicyTest.audit("alice", "maxHits " + maxHits));
    }

    private static void awaitApplied(ClusterNode node, long expected, int maxHits) {
        await(() -> change(node, expected, maxHits) instanceof SharedPolicy.Applied,
                node.name() + " to apply a change");
    }

    /**
     * One notice per change of state (never the same state twice in a row), DEGRADED among them, HEALTHY last.
     * More than one round is allowed: on a loaded machine a probe can miss its 50 ms deadline on its own.
     */
    private static void assertSaidDegradedThenRecovered(List<ClusterState> seen) {
        assertThat(seen).contains(ClusterState.DEGRADED).endsWith(ClusterState.HEALTHY);
        for (int i = 1; i < seen.size(); i++) {
            assertThat(seen.get(i)).as("change %d of %s", i, seen).isNotEqualTo(seen.get(i - 1));
        }
    }

    @Test
    void redisKilledThenBackEmptyTheNodesSayDegradedThenSeedItAndFollowAgain() throws Exception {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        MemoryListener onB = follow(b);
        follow(a);
        awaitState(a, ClusterState.HEALTHY);
        awaitApplied(a, 1, 7);
        List<ClusterState> seen = transitions(a);

        redis.kill();

        assertThat(timedPing(a)).isLessThan(CALL_BOUND);
        awaitState(a, ClusterState.DEGRADED);
        long start = System.nanoTime();
        assertThat(change(a, 2, 8)).isInstanceOf(SharedPolicy.Unavailable.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ADMIN_BOUND);

        redis.restartEmpty(); // no keys, no cached scripts
        awaitState(a, ClusterState.HEALTHY);
        await(() -> b.state() == ClusterState.HEALTHY, "b healthy again");
        // The nodes put their version 2 back; the change script is sent again after NOSCRIPT.
        awaitApplied(a, 2, 9);
        await(() -> onB.current().version() == 3, "b to follow the restarted Redis");
        assertThat(onB.versions()).containsExactly(2L, 3L);
        assertSaidDegradedThenRecovered(seen);
    }

    @Test
    void anOperatorsChangeMadeWhileTheLinkReconnectsToARestartedRedisWaitsForTheLinkAndIsApplied() throws Exception {
        // An admin deadline a loaded machine restarts redis-server well within.
        ClusterSettings s = ClusterFixture.SETTINGS;
        ClusterNode a = cluster.node("a", new ClusterFixture.FixedLoad(0), new ClusterSettings(s.deadline(),
                Duration.ofSeconds(30), s.heartbeat(), s.recoverAfter(), s.unreachableAfter(), s.nodeTtl(),
                s.followBlock(), s.logLength(), s.keyPrefix()));
        follow(a);
        awaitApplied(a, 1, 7);
        redis.kill();
        await(() -> !a.adminLink().connected(), "a to see its link to Redis drop");

        CompletableFuture<SharedPolicy.Outcome> outcome = new CompletableFuture<>();
        Thread operator = new Thread(() -> outcome.complete(change(a, 2, 8)), "operator");
        operator.start();
        await(() -> operator.getState() == Thread.State.TIMED_WAITING || outcome.isDone(),
                "the change to wait for the link (or to be answered)");
        redis.restartEmpty();

        assertThat(outcome.get(60, TimeUnit.SECONDS)).isInstanceOfSatisfying(SharedPolicy.Applied.class,
                applied -> assertThat(applied.policy().version()).isEqualTo(3));
    }

    @Test
    void redisHungCallsStopAtTheDeadlineAndTheNodeRecoversWhenItWakes() throws Exception {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        follow(a);
        MemoryListener onB = follow(b);
        awaitState(a, ClusterState.HEALTHY);
        List<ClusterState> seen = transitions(a);

        redis.hang();
        try {
            assertThat(timedPing(a)).isLessThan(CALL_BOUND);
            awaitState(a, ClusterState.DEGRADED);
            long start = System.nanoTime();
            assertThat(change(a, 1, 6)).isInstanceOf(SharedPolicy.Unavailable.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ADMIN_BOUND);
            assertThat(timedPing(b)).isLessThan(CALL_BOUND);
        } finally {
            redis.resume();
        }

        awaitState(a, ClusterState.HEALTHY);
        // The change that timed out may or may not have been applied by Redis when it woke: either way,
        // each version reaches b once.
        long base = onB.current().version();
        await(() -> change(a, a.policy().appliedVersion(), 12) instanceof SharedPolicy.Applied,
                "a change once Redis answers");
        await(() -> onB.current().hitStack().maxHits() == 12, "b to apply the change");
        assertThat(onB.versions()).doesNotHaveDuplicates().isSorted();
        assertThat(onB.current().version()).isGreaterThan(base);
        assertSaidDegradedThenRecovered(seen);
    }

    @Test
    void droppedConnectionsAreReopenedAndNoCallWaitsMeanwhile() throws Exception {
        ClusterNode a = cluster.node("a");
        ClusterNode b = cluster.node("b");
        follow(a);
        MemoryListener onB = follow(b);
        awaitState(a, ClusterState.HEALTHY);

        for (int i = 0; i < 3; i++) {
            assertThat(redis.dropClients()).isPositive();
            assertThat(timedPing(a)).isLessThan(CALL_BOUND);
            await(() -> a.requestLink().call(commands -> commands.ping()).handle((pong, e) -> pong != null).join(),
                    "a to reconnect");
        }

        awaitState(a, ClusterState.HEALTHY);
        awaitApplied(a, 1, 4);
        await(() -> onB.current().version() == 2, "b to follow after its connections were dropped");
        assertThat(onB.versions()).containsExactly(2L);
    }

    @Test
    void aNodeStartsWhileRedisIsDownAndJoinsWhenItComes() throws Exception {
        redis.kill();
        ClusterNode a = cluster.node("a");
        MemoryListener onA = new MemoryListener(Policy.defaults().withVersion(4));
        a.policy().follow(onA);

        assertThat(a.state()).isEqualTo(ClusterState.DEGRADED);
        assertThat(timedPing(a)).isLessThan(CALL_BOUND);
        assertThat(change(a, 4, 5)).isInstanceOf(SharedPolicy.Unavailable.class);
        assertThat(a.status().nodes()).isEqualTo(1);

        redis.restartEmpty();
        awaitState(a, ClusterState.HEALTHY);
        awaitApplied(a, 4, 5);
        assertThat(onA.versions()).containsExactly(5L);
    }
}
