package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.PolicyWriter;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.change.AutomaticBanWriter;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Automatic bans in a cluster, on a real Redis: a ban travels as a ban (a small record in the change log, applied by
 * every node to its copy), not as the whole policy, and its expiry is judged on Redis's clock, so nodes whose own
 * clocks disagree end it together.
 */
class ClusterAutomaticBansTest extends OneRedisPerClass {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "alice");
    /** The bytes of every field of every entry in the change log. */
    private static final String LOG_BYTES = "local n = 0 for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-', '+')) "
            + "do for i = 1, #e[2] do n = n + #e[2][i] end end return n";
    /** The entries of the change log that carry a whole policy. */
    private static final String WHOLE_POLICIES = "local n = 0 for _, e in ipairs(redis.call('XRANGE', KEYS[1], '-',"
            + " '+')) do for i = 1, #e[2], 2 do if e[2][i] == 'policy' then n = n + 1 end end end return n";

    @TempDir
    Path dir;
    private final List<AutoCloseable> writers = new ArrayList<>();

    /** A node as the server assembles one: engine, its copy of the cluster's policy, the one writer. */
    private record Node(ThrottleEngine engine, PolicyChanges changes, StateDirectory state, ClusterNode member) {

        /** The cluster's policy as a node that missed the log would take it: the document and the bans since. */
        Policy document() throws Exception {
            return member.policy().document().get(10, TimeUnit.SECONDS);
        }
    }

    private Node node(String name, InstantSource clock) {
        StateDirectory state = StateDirectory.open(dir.resolve(name), null);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, Policy.defaults(),
                CrawlerListClassifier.bundled());
        PolicyHistory history = new PolicyHistory(engine.policy());
        ClusterNode member = cluster.node(name);
        PolicyWriter writer = engine.claimPolicyWriter(); // the mirror's and the changes', as a node's NodeEngine
        member.policy().follow(new LocalPolicyMirror(writer, state, clock, history));
        PolicyChanges changes = new PolicyChanges(writer, new ClusterPolicyStore(member::policy,
                () -> engine.policy().version(), history), clock);
        writers.add(AutomaticBanWriter.start(engine, changes));
        ClusterFixture.awaitState(member, ClusterState.HEALTHY);
        await(() -> documentExists(), "the cluster's policy to be seeded");
        return new Node(engine, changes, state, member);
    }

    /** Equal but for the order of the bans (a hash holds those made since the policy was written whole). */
    private static boolean sameBansInAnyOrder(Policy one, Policy other) {
        return one.withBans(List.of()).equals(other.withBans(List.of()))
                && new HashSet<>(one.bans()).equals(new HashSet<>(other.bans()))
                && one.bans().size() == other.bans().size();
    }

    private static boolean documentExists() {
        try {
            return "1".equals(server.command("EXISTS", ClusterSettings.DEFAULTS.fleetKey("policy")));
        } catch (IOException e) {
            return false;
        }
    }

    @AfterEach
    void stopWriters() throws Exception {
        for (AutoCloseable writer : writers) {
            writer.close();
        }
    }

    /** Served once, then refused: an offence under a rule of one refusal. */
    private static void offend(ThrottleEngine engine, String ip) {
        Request request = Request.direct(ip, "curl/8.5.0");
        for (int n = 0; n < 2; n++) {
            if (engine.decide(request) instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1000);
            }
        }
    }

    private static void strict(Node node, int banSeconds) {
        node.changes().apply(OPERATOR, "policy", "escalate at once", p -> p.withHitStack(new Policy.HitStack(60, 1))
                .withPerClient(new Policy.PerClient(100)).withEscalation(List.of(new Escalation(
                        Escalation.Scope.CLIENT, 1, 60, banSeconds, 1.0, banSeconds))), Policy::escalation);
    }

    private static boolean refused(ThrottleEngine engine, String ip) {
        return engine.decide(Request.direct(ip, "curl/8.5.0")) instanceof Decision.Refuse refusal
                && refusal.reason() == Reason.BANNED;
    }

    private long redis(String script) throws Exception {
        return Long.parseLong(server.command("EVAL", script, "1", ClusterSettings.DEFAULTS.fleetKey("policy:log")));
    }

    @Test
    @DiffersOnACluster("the offence counted in the client's slot, the ban written in the fleet's")
    void aBanFromOneNodeIsInForceOnTheOtherAndTheLogHoldsBansNotPolicies() throws Exception {
        Node a = node("web-1", InstantSource.system());
        Node b = node("web-2", InstantSource.system());
        strict(a, 600);
        await(() -> b.engine().policy().escalation().size() == 1, "web-2 to have the rule");
        long wholeBefore = redis(WHOLE_POLICIES);

        int bans = 300;
        for (int i = 0; i < bans; i++) {
            offend(a.engine(), "198.51." + (i / 250) + "." + (1 + i % 250));
        }
        await(() -> b.engine().policy().bans().size() == bans, "every ban to reach web-2");

        assertThat(refused(b.engine(), "198.51.0.1")).isTrue();
        // the same policy on both; in another order of bans when a node took the document after missing the log
        // (a busy machine's follower can), which is why the bans are compared as a set
        await(() -> sameBansInAnyOrder(b.engine().policy(), a.engine().policy()), "web-2 to hold web-1's policy");
        assertThat(redis(WHOLE_POLICIES)).as("no whole policy written for a ban").isEqualTo(wholeBefore);
        // a ban record is a few hundred bytes; the whole policy per ban would be ~ bans^2 / 2 of them (~10 MB here)
        assertThat(redis(LOG_BYTES)).isLessThan(bans * 1_000L);
        assertThat(sameBansInAnyOrder(a.document(), a.engine().policy())).as("the document a node that missed the log "
                + "takes").isTrue();
        for (Node node : List.of(a, b)) {
            await(() -> node.state().audit().newestFirst(1_000).stream()
                    .filter(e -> e.action().equals("ban.add")).count() == bans, "every ban in each node's audit");
        }
    }

    @Test
    void expiryIsJudgedOnRedisClockSoNodesWhoseClocksDisagreeEndABanTogether() throws Exception {
        Node a = node("web-1", InstantSource.system());
        InstantSource ahead = InstantSource.offset(InstantSource.system(), Duration.ofMinutes(10));
        Node b = node("web-2", ahead); // this node's clock is ten minutes fast
        await(() -> Math.abs(Duration.between(Instant.now(), b.engine().banClock()).toSeconds()) < 5,
                "web-2 to read Redis's clock");
        strict(a, 3);
        await(() -> b.engine().policy().escalation().size() == 1, "web-2 to have the rule");

        offend(a.engine(), "198.51.100.7");
        await(() -> b.engine().policy().bans().size() == 1, "the ban to reach web-2");

        // on its own clock the ban ended ten minutes ago; on the cluster's it is in force
        assertThat(refused(b.engine(), "198.51.100.7")).isTrue();
        assertThat(b.engine().expiredAutomaticBans()).isEmpty();
        // then it ends, on both nodes, removed once for the cluster
        await(() -> a.engine().policy().bans().isEmpty() && b.engine().policy().bans().isEmpty(),
                "the ban to expire on both nodes");
        // the same policy on both; in another order of bans when a node took the document after missing the log
        // (a busy machine's follower can), which is why the bans are compared as a set
        await(() -> sameBansInAnyOrder(b.engine().policy(), a.engine().policy()), "web-2 to hold web-1's policy");
        assertThat(sameBansInAnyOrder(b.document(), b.engine().policy())).as("the document, with the removal").isTrue();
        // in force nowhere (a request would be a new offence under this rule of one refusal, so none is sent)
        assertThat(a.engine().snapshot().bans()).isEmpty();
        assertThat(b.engine().snapshot().bans()).isEmpty();
        await(() -> b.state().audit().newestFirst(100).stream().filter(e -> e.action().equals("ban.expire"))
                .count() == 1, "the expiry in web-2's audit, once");
    }
}
