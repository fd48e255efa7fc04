package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Snapshots taken while many threads decide: the two pushes of one request (on its client, then on its address) are
 * seen together or not at all, so an address row never holds a hit its clients' rows do not. Exactly: an address
 * whose only client is shown never has a row of its own (nothing is refused as an address here), and an address of
 * several clients never has more hits than its clients' rows together.
 *
 * <p>The one inexactness the hit stacks allow, kept out of this test: a request that read the clock before a second
 * began and pushes after another client of its address moved the address into that second has its hit counted there
 * by the address (a clock going back counts as now) and in its own second by its client, so at the window's oldest
 * second the address can hold one such hit more than its clients for a moment. The loaders here never straddle a
 * step of the clock (they decide under a read lock, the clock steps under the write lock); the snapshots read the
 * clock whenever they like.
 */
class SnapshotConsistencyTest {

    private static final int LOADERS = 3;
    private static final int SOLE_ADDRESSES = 40;
    private static final int SHARED_ADDRESSES = 10;
    private static final int AGENTS_PER_SHARED = 3;
    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final ExecutorService pool = Executors.newFixedThreadPool(LOADERS + 1);

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void anAddressRowNeverHoldsAHitItsClientsRowsDoNot() throws Exception {
        // every request admitted: the browser check off, since one /24's thousands of browser claims are over budget
        Policy policy = EngineFixture.withoutBrowserCheck(Policy.defaults())
                .withHitStack(new Policy.HitStack(15, 1_000_000))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000_000, 1_000_000))
                .withLoad(new Policy.Load(1_000_000, 10, 500));
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults().withTopClients(500), clock, policy,
                new FakeClassifier());
        List<Request> requests = new ArrayList<>();
        for (int a = 0; a < SOLE_ADDRESSES; a++) {
            requests.add(Request.direct("192.0.2." + a, BROWSER));
        }
        for (int a = 0; a < SHARED_ADDRESSES; a++) {
            for (int u = 0; u < AGENTS_PER_SHARED; u++) {
                requests.add(Request.direct("198.51.100." + a, BROWSER + " agent/" + u));
            }
        }
        // every client seen twice first (a newcomer, then in the main table; a shared address folded), one at a time
        for (int round = 0; round < 2; round++) {
            requests.forEach(request -> serve(engine, request));
        }
        AtomicBoolean running = new AtomicBoolean(true);
        ReadWriteLock steps = new ReentrantReadWriteLock();
        List<Future<?>> loaders = new ArrayList<>();
        for (int t = 0; t < LOADERS; t++) {
            int offset = t;
            loaders.add(pool.submit(() -> {
                for (int i = offset; running.get(); i += LOADERS) {
                    steps.readLock().lock();
                    try {
                        serve(engine, requests.get(Math.floorMod(i * 7, requests.size())));
                    } finally {
                        steps.readLock().unlock();
                    }
                    if (i % 200 == 0) {
                        steps.writeLock().lock();
                        try {
                            clock.advanceMillis(37); // seconds go by during the load, and hits leave the window
                        } finally {
                            steps.writeLock().unlock();
                        }
                    }
                }
                return null;
            }));
        }
        List<String> inconsistencies = new ArrayList<>();
        try {
            for (int s = 0; s < 600 && inconsistencies.isEmpty(); s++) {
                inconsistencies.addAll(inconsistencies(engine.snapshot()));
            }
        } finally {
            running.set(false);
            for (Future<?> loader : loaders) {
                loader.get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(inconsistencies).isEmpty();
    }

    private static void serve(ThrottleEngine engine, Request request) {
        Decision decision = engine.decide(request);
        assertThat(decision).isInstanceOf(Decision.Admit.class);
        ((Decision.Admit) decision).admission().complete(200, 1_000);
    }

    /** What the snapshot shows of an address that its clients' rows do not account for. */
    private static List<String> inconsistencies(Snapshot snapshot) {
        Map<String, Integer> clientHits = new HashMap<>();
        Map<String, Integer> clients = new HashMap<>();
        for (ClientRow row : snapshot.topClients()) {
            if (!row.address()) {
                clientHits.merge(row.ip(), row.hitsInWindow(), Integer::sum);
                clients.merge(row.ip(), 1, Integer::sum);
            }
        }
        List<String> found = new ArrayList<>();
        for (ClientRow row : snapshot.topClients()) {
            if (!row.address()) {
                continue;
            }
            int ofClients = clientHits.getOrDefault(row.ip(), 0);
            if (clients.getOrDefault(row.ip(), 0) == 1) {
                found.add(row.ip() + ": an address row beside its only client (" + row.hitsInWindow() + " hits, "
                        + ofClients + " on the client) at " + snapshot.takenAt());
            } else if (row.hitsInWindow() > ofClients) {
                found.add(row.ip() + ": " + row.hitsInWindow() + " hits, its clients' rows " + ofClients + " at "
                        + snapshot.takenAt());
            }
        }
        return found;
    }
}
