package io.sluice.server;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.change.BanChange;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Automatic bans on one node as the server assembles it ({@link NodeEngine}): in force on the request thread that
 * earned them, written, audited and installed by the policy's one writer ({@link PolicyChanges}) off it, beside
 * operators' changes, neither overtaking the other.
 */
class AutomaticBansTest {
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "alice");
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private StateDirectory state;
    private NodeEngine node;
    private ThrottleEngine engine;
    private PolicyChanges changes;

    /** A client refused once is an offender: banned for ten minutes. */
    private void startNode(PolicyStore store) throws IOException {
        state = StateDirectory.open(dir, null);
        state.savePolicy(state.loadPolicy().withHitStack(new Policy.HitStack(60, 1))
                .withPerClient(new Policy.PerClient(100))
                .withEscalation(List.of(new Escalation(Escalation.Scope.CLIENT, 1, 60, 600, 1.0, 600))));
        node = NodeEngine.start(state, null, null, InstantSource.system(), null);
        engine = node.engine();
        changes = node.policyChanges(store != null ? store
                : new LocalPolicyStore(state, node.history(), InstantSource.system()), InstantSource.system());
    }

    @AfterEach
    void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    /** Served once, then refused: an offence, so banned. */
    private void offend(String ip) {
        Request request = Request.direct(ip, "curl/8.5.0");
        for (int n = 0; n < 2; n++) {
            if (engine.decide(request) instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1000);
            }
        }
    }

    /** A store whose every write waits until the test lets it go: a disk that hangs. */
    private static final class HangingStore implements PolicyStore {
        final CountDownLatch writing = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public AuditEntry commit(Policy current, Policy next, AuditEntry entry) {
            hang();
            return entry;
        }

        @Override
        public void commitAutomatic(Policy current, Policy next, BanChange change, List<AuditEntry> entries) {
            hang();
        }

        private void hang() {
            writing.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public Optional<Policy> version(long version) {
            return Optional.empty();
        }
    }

    @Test
    void theRequestThatEarnsABanNeverWaitsForTheWriterAndTheBanIsInForceForTheNextRequest() throws Exception {
        HangingStore store = new HangingStore();
        startNode(store);
        try {
            // an operator's change hangs in the store, holding the writer
            CompletableFuture.runAsync(() -> changes.apply(OPERATOR, "pause", "pause crawlers",
                    p -> p.withPause(new Policy.Pause(false, List.of(RequestClass.CRAWLER))), Policy::pause),
                    OwnThread.EACH);
            assertThat(store.writing.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

            Request request = Request.direct("198.51.100.7", "curl/8.5.0");
            CompletableFuture<Decision> offence = CompletableFuture.supplyAsync(() -> {
                engine.decide(request);
                return engine.decide(request); // refused: an offence, banned
            }, OwnThread.EACH);
            assertThat(offence.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(Decision.Refuse.class);
            assertThat(engine.decide(request)).isInstanceOfSatisfying(Decision.Refuse.class,
                    refusal -> assertThat(refusal.reason()).isEqualTo(Reason.BANNED));
            assertThat(engine.policy().bans()).as("not written yet").isEmpty();
            assertThat(engine.snapshot().bans()).as("listed at once").hasSize(1);
        } finally {
            store.release.countDown();
        }
    }

    @Test
    void aStaleOperatorEditDuringAStormOfAutomaticBansMergesAndEveryBanAndTheEditSurviveARestart() throws Exception {
        startNode(null);
        Policy read = engine.policy(); // the limits form opens before the storm
        CompletableFuture<Void> storm = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 1_500; i++) {
                offend("198.51." + (i / 250) + "." + (1 + i % 250));
            }
        }, OwnThread.EACH);
        int operatorChanges = 0;
        // fewer than the operators' versions the history keeps whole, however long the storm takes on a busy machine
        while (!storm.isDone() && operatorChanges < 32) {
            boolean pause = operatorChanges % 2 == 0;
            changes.apply(OPERATOR, "pause", "pause " + pause, p -> p.withPause(new Policy.Pause(false,
                    pause ? List.of(RequestClass.CRAWLER) : List.of())), Policy::pause);
            operatorChanges++;
        }
        storm.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        Policy applied = changes.replace(OPERATOR, read.version(), read.withHitStack(new Policy.HitStack(60, 5)));
        await(() -> engine.policy().bans().size() == 1_500, "every ban to be written");

        assertThat(operatorChanges).isPositive();
        assertThat(applied.hitStack().maxHits()).isEqualTo(5);
        assertThat(engine.policy().version()).as("a version per batch, not per ban").isLessThan(1_500);
        // what is on disk now is what a process killed now comes back with
        Policy onDisk = StateDirectory.open(dir, null).loadPolicy();
        assertThat(onDisk).isEqualTo(engine.policy());
        assertThat(onDisk.hitStack().maxHits()).isEqualTo(5);
        assertThat(Files.readAllLines(dir.resolve("audit.log")).stream()
                .filter(line -> line.contains("\"action\":\"ban.add\"")).count()).isEqualTo(1_500);
        assertThat(PolicyJson.mapper().readValue(Files.readString(dir.resolve("policy.json")), Policy.class))
                .isEqualTo(engine.policy());
    }

    @Test
    void aStaleFormAfterManyMoreAutomaticBanVersionsThanTheHistoryKeepsWholeMerges() throws Exception {
        startNode(null);
        Policy read = engine.policy();
        for (int i = 0; i < 100; i++) {
            offend("198.51.100." + (i + 1));
            long bans = i + 1;
            await(() -> engine.policy().bans().size() == bans, "ban " + bans + " to be written");
        }
        assertThat(engine.policy().version() - read.version()).isGreaterThanOrEqualTo(100);

        Policy applied = changes.replace(OPERATOR, read.version(), read.withHitStack(new Policy.HitStack(60, 5)));

        assertThat(applied.hitStack().maxHits()).isEqualTo(5);
        assertThat(applied.bans()).hasSize(100);
    }

    @Test
    void anEditThatRemovesABanMadeBeforeAutomaticBansIsMergedWithThem() throws Exception {
        startNode(null);
        Policy banned = changes.apply(OPERATOR, "ban.add", "ban", p -> p.withBans(List.of(new Ban("b1",
                BanType.IP, "192.0.2.9", "r", "alice", null, null))), Policy::bans);
        for (int i = 0; i < 3; i++) {
            offend("198.51.100." + (i + 1));
        }
        await(() -> engine.policy().bans().size() == 4, "the automatic bans to be written");

        Policy applied = changes.replace(OPERATOR, banned.version(), banned.withBans(List.of()));

        assertThat(applied.bans()).hasSize(3).allMatch(ban -> ban.author().equals("sluice"));
    }

    @Test
    void expiredAutomaticBansAreRemovedByTheWriterAndAudited() throws Exception {
        startNode(null);
        changes.apply(OPERATOR, "escalation", "short bans", p -> p.withEscalation(List.of(
                new Escalation(Escalation.Scope.CLIENT, 1, 60, 1, 1.0, 1))), Policy::escalation);
        offend("198.51.100.1");
        await(() -> engine.policy().bans().size() == 1, "the ban to be written");
        await(() -> engine.policy().bans().isEmpty(), "the expired ban to be removed");
        await(() -> state.audit().newestFirst(10).stream().anyMatch(e -> e.action().equals("ban.expire")),
                "its removal to be audited");
    }
}
