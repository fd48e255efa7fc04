package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.StateDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On one node the engine makes automatic bans itself, on request threads, while operators change the policy
 * through {@link PolicyChanges}: neither may overtake the other between reading the live policy, writing it to disk
 * and swapping it in. An operator's change never fails for a ban it did not ask about, and the file on disk is the
 * live policy once both are done.
 */
class AutomaticBansBesideOperatorChangesTest {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "alice");

    @TempDir
    Path dir;
    private ThrottleEngine engine;
    private AutomaticBanRecorder recorder;
    private PolicyChanges changes;

    /** One node as the server assembles it: a client refused once is banned, persisted and audited by the recorder. */
    @BeforeEach
    void startNode() {
        StateDirectory state = StateDirectory.open(dir, null);
        InstantSource clock = InstantSource.system();
        engine = new ThrottleEngine(EngineConfig.defaults(), clock, state.loadPolicy()
                .withHitStack(new Policy.HitStack(60, 1)).withPerClient(new Policy.PerClient(100))
                .withEscalation(List.of(new Escalation(Escalation.Scope.CLIENT, 1, 60, 600, 1.0, 600))),
                CrawlerListClassifier.bundled());
        PolicyHistory history = new PolicyHistory(engine.policy());
        recorder = new AutomaticBanRecorder(engine, state, clock, history);
        engine.onAutomaticBans(recorder);
        changes = new PolicyChanges(engine, new LocalPolicyStore(state, history, clock), clock);
    }

    @Test
    void operatorChangesAndAutomaticBansAllLandAndTheFileIsTheLivePolicy() throws Exception {
        // each offender: one request served, the second refused, which is an offence: an automatic ban
        CompletableFuture<Void> offenders = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 500; i++) {
                Request request = Request.direct("198.51." + (i / 250) + "." + (1 + i % 250), "curl/8.5.0");
                for (int n = 0; n < 2; n++) {
                    if (engine.decide(request) instanceof Decision.Admit admit) {
                        admit.admission().complete(200, 1000);
                    }
                }
            }
        });
        int operatorChanges = 0;
        while (!offenders.isDone()) {
            boolean pause = operatorChanges % 2 == 0;
            changes.apply(OPERATOR, "pause", "pause " + pause, p -> p.withPause(new Policy.Pause(false,
                    pause ? List.of(RequestClass.CRAWLER) : List.of())), Policy::pause);
            operatorChanges++;
        }
        offenders.get(60, TimeUnit.SECONDS);
        recorder.close();

        assertThat(operatorChanges).isPositive();
        Policy live = engine.policy();
        assertThat(live.bans()).hasSizeGreaterThan(100);
        assertThat(PolicyJson.mapper().readValue(Files.readString(dir.resolve("policy.json")), Policy.class))
                .isEqualTo(live);
    }

    @Test
    void anEditMadeFromAVersionAnAutomaticBanInstalledIsMergedWithWhatChangedSince() {
        Request request = Request.direct("198.51.100.7", "curl/8.5.0");
        engine.decide(request);
        engine.decide(request); // refused: an offence, banned
        Policy read = engine.policy(); // the limits form opens on the version the ban made
        assertThat(read.bans()).hasSize(1);

        changes.apply(OPERATOR, "pause", "pause crawlers", p -> p.withPause(new Policy.Pause(false,
                List.of(RequestClass.CRAWLER))), Policy::pause);
        Policy applied = changes.replace(OPERATOR, read.version(), read.withHitStack(new Policy.HitStack(60, 5)));
        recorder.close();

        assertThat(applied.hitStack().maxHits()).isEqualTo(5);
        assertThat(applied.pause().classes()).containsExactly(RequestClass.CRAWLER);
        assertThat(applied.bans()).hasSize(1);
    }
}
