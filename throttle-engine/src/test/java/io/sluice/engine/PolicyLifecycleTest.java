package io.sluice.engine;

import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyValidationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyLifecycleTest {

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults());
    /** The engine's one writer, as an embedder of the bare engine holds it (no audit: that is the embedder's). */
    private final PolicyWriter writer = engine.claimPolicyWriter();

    @Test
    void aReplacedPolicyGetsTheNextVersionAndTheNextDecisionUsesIt() {
        for (int i = 0; i < 5; i++) {
            served(decide(engine, "192.0.2.1", CURL));
        }
        Policy installed = writer.replace(1, Policy.defaults().withHitStack(new Policy.HitStack(15, 4))
                .withVersion(99));
        assertThat(installed.version()).isEqualTo(2);
        assertThat(engine.policy()).isEqualTo(installed);
        // lowering maxHits applies at once to hits already counted
        refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
    }

    @Test
    void shorteningTheWindowForgetsOlderHitsAtOnce() {
        for (int i = 0; i < 10; i++) {
            served(decide(engine, "192.0.2.1", CURL));
        }
        clock.advanceMillis(6_000);
        refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
        writer.update(p -> p.withHitStack(new Policy.HitStack(5, 10)));
        served(decide(engine, "192.0.2.1", CURL));
        // lengthening it again brings the older hits back into view: history is kept for 60 s
        writer.update(p -> p.withHitStack(new Policy.HitStack(15, 10)));
        refused(decide(engine, "192.0.2.1", CURL), Reason.HIT_STACK);
    }

    @Test
    void aReplaceBasedOnAnOldVersionIsAConflictAndChangesNothing() {
        writer.replace(1, Policy.defaults().withPerClient(new Policy.PerClient(3)));
        assertThatThrownBy(() -> writer.replace(1, Policy.defaults()))
                .isInstanceOfSatisfying(PolicyConflictException.class, e -> {
                    assertThat(e.expectedVersion()).isEqualTo(1);
                    assertThat(e.currentVersion()).isEqualTo(2);
                });
        assertThat(engine.policy().perClient().maxConcurrent()).isEqualTo(3);
    }

    @Test
    void anInvalidPolicyIsRejectedWithEveryBadFieldAndNothingChanges() {
        Policy bad = Policy.defaults()
                .withHitStack(new Policy.HitStack(0, -1))
                .withLoad(new Policy.Load(0, 10, 500))
                .withBans(List.of(new Ban("b1", BanType.IP, "10.0.0.300", "r", "a", Instant.EPOCH, null)));
        assertThatThrownBy(() -> writer.replace(1, bad))
                .isInstanceOfSatisfying(PolicyValidationException.class, e ->
                        assertThat(e.errors()).extracting(FieldError::field).containsExactly(
                                "hitStack.windowSeconds", "hitStack.maxHits", "load.maxActive", "bans[0].value"));
        assertThat(engine.policy()).isEqualTo(Policy.defaults());
    }

    @Test
    void updatePolicyAddsABanThatTheNextRequestSees() {
        served(decide(engine, "192.0.2.1", CURL));
        Policy after = writer.update(p -> p.withBans(List.of(
                new Ban("b1", BanType.AGENT, "curl", "scraper", "alice", clock.instant(), null))));
        assertThat(after.version()).isEqualTo(2);
        refused(decide(engine, "192.0.2.1", CURL), Reason.BANNED);
        assertThat(engine.snapshot().bans()).extracting(Ban::id).containsExactly("b1");
    }

    @Test
    void anInvalidUpdateChangesNothing() {
        assertThatThrownBy(() -> writer.update(p -> p.withPerClient(new Policy.PerClient(0))))
                .isInstanceOf(PolicyValidationException.class)
                .hasMessageContaining("perClient.maxConcurrent");
        assertThat(engine.policy().version()).isEqualTo(1);
    }

    @Test
    void thePolicyHasOneWriterHandedOutOnce() {
        assertThatThrownBy(engine::claimPolicyWriter)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("one writer");
        assertThat(writer.engine()).isSameAs(engine);
        assertThat(engine.policy().version()).isEqualTo(1);
    }

    @Test
    void anEngineCannotStartWithAnInvalidPolicy() {
        Policy bad = Policy.defaults().withTrustedProxies(List.of("not-an-ip"));
        assertThatThrownBy(() -> EngineFixture.engine(clock, bad))
                .isInstanceOf(PolicyValidationException.class)
                .hasMessageContaining("trustedProxies[0]");
    }

    @Test
    void concurrentUpdatesAreNeverLost() throws Exception {
        int threads = 4;
        int perThread = 50;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    writer.update(p -> p.withPerClient(new Policy.PerClient(p.perClient().maxConcurrent() + 1)));
                }
            });
            workers[t].start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(engine.policy().perClient().maxConcurrent()).isEqualTo(8 + threads * perThread);
        assertThat(engine.policy().version()).isEqualTo(1 + threads * perThread);
    }

    @Test
    void loweringMaxConcurrentLetsRunningRequestsFinishAndRefusesNewOnesUntilBelow() {
        List<Decision.Admit> running = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            running.add(EngineFixture.admitted(decide(engine, "192.0.2.1", EngineFixture.BROWSER)));
        }
        writer.update(p -> p.withPerClient(new Policy.PerClient(2)));
        refused(decide(engine, "192.0.2.1", EngineFixture.BROWSER), Reason.CLIENT_CONCURRENCY);
        running.remove(0).admission().complete(200, 1);
        running.remove(0).admission().complete(200, 1);
        refused(decide(engine, "192.0.2.1", EngineFixture.BROWSER), Reason.CLIENT_CONCURRENCY);
        running.remove(0).admission().complete(200, 1);
        EngineFixture.admitted(decide(engine, "192.0.2.1", EngineFixture.BROWSER));
        assertThat(engine.snapshot().load().inFlight()).isEqualTo(2);
    }

    @Test
    void aBanAddedWhileARequestWaitsRefusesItWhenItResumes() {
        writer.update(p -> p.withLoad(new Policy.Load(1, 5, 500)));
        Decision.Admit busy = EngineFixture.admitted(decide(engine, "192.0.2.1", CURL));
        Decision.Wait wait = EngineFixture.waiting(decide(engine, "192.0.2.2", CURL), Reason.LOAD);
        writer.update(p -> p.withBans(List.of(
                new Ban("b1", BanType.IP, "192.0.2.2", "flood", "alice", clock.instant(), null))));
        busy.admission().complete(200, 1);
        refused(wait.deferral().resume(), Reason.BANNED);
        assertThat(engine.snapshot().load()).extracting(l -> l.inFlight(), l -> l.waiting()).containsExactly(0, 0);
    }
}
