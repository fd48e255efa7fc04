package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storm of 1,500 automatic bans and a stale operator edit in a process of its own, then {@code kill -9}: once the
 * writer has written them (the window docs/architecture.md states), every ban and the edit are on disk.
 */
class AutomaticBansKillTest {
    private static final int BANS = 1_500;
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    /** The process killed: prints EDIT once the stale edit applied, WRITTEN once every ban is written, then waits. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        StateDirectory state = StateDirectory.open(dir, null);
        state.savePolicy(state.loadPolicy().withHitStack(new Policy.HitStack(60, 1))
                .withPerClient(new Policy.PerClient(100))
                .withEscalation(List.of(new Escalation(Escalation.Scope.CLIENT, 1, 60, 3_600, 1.0, 3_600))));
        NodeEngine node = NodeEngine.start(state, null, null, InstantSource.system(), null);
        ThrottleEngine engine = node.engine();
        PolicyChanges changes = node.policyChanges(new LocalPolicyStore(state, node.history(),
                InstantSource.system()), InstantSource.system());
        PolicyChanges.Author operator = new PolicyChanges.Author("admin", "alice");
        Policy read = engine.policy(); // the limits form opens before the storm
        CompletableFuture<Void> storm = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < BANS; i++) {
                Request request = Request.direct("198.51." + (i / 250) + "." + (1 + i % 250), "curl/8.5.0");
                for (int n = 0; n < 2; n++) {
                    if (engine.decide(request) instanceof Decision.Admit admit) {
                        admit.admission().complete(200, 1000);
                    }
                }
            }
        }, OwnThread.EACH);
        // fewer than the operators' versions the history keeps whole, however long the storm takes on a busy machine
        for (int i = 0; !storm.isDone() && i < 32; i++) {
            boolean pause = i % 2 == 0;
            changes.apply(operator, "pause", "pause " + pause, p -> p.withPause(new Policy.Pause(false,
                    pause ? List.of(RequestClass.CRAWLER) : List.of())), Policy::pause);
        }
        storm.get();
        changes.replace(operator, read.version(), read.withHitStack(new Policy.HitStack(60, 5)));
        System.out.println("EDIT");
        Await.await(PATIENCE, () -> engine.policy().bans().size() >= BANS, "every ban written");
        System.out.println("WRITTEN");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    @Test
    void everyBanAndTheStaleEditSurviveKillNine(@TempDir Path dir) throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), AutomaticBansKillTest.class.getName(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            CompletableFuture<Boolean> written = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        if (line.equals("WRITTEN")) {
                            return true;
                        }
                    }
                    return false;
                } catch (IOException e) {
                    return false;
                }
            }, OwnThread.EACH);
            assertThat(written.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } finally {
            process.destroyForcibly(); // SIGKILL: no shutdown hook, no flush
            process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }

        Policy restarted = StateDirectory.open(dir, null).loadPolicy();
        assertThat(restarted.bans()).hasSize(BANS);
        assertThat(restarted.hitStack().maxHits()).isEqualTo(5);
        assertThat(Files.readAllLines(dir.resolve("audit.log")).stream()
                .filter(line -> line.contains("\"action\":\"ban.add\"")).count()).isEqualTo(BANS);
    }
}
