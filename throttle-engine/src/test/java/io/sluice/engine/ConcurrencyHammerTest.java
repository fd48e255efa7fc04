package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Several threads at once; no limit may be exceeded and no count lost, whatever the interleaving. */
class ConcurrencyHammerTest {

    private static final int THREADS = 4;
    /** These tests hammer the client rules; the address aggregate has its own tests. */
    private static final Policy.PerAddress UNLIMITED_ADDRESSES = new Policy.PerAddress(32, 64, 60, 1_000_000,
            1_000_000);
    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    private final LongAdder cancelled = new LongAdder();

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private void hammer(Callable<Void> task) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<Void>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(pool.submit(() -> {
                start.await();
                return task.call();
            }));
        }
        for (Future<Void> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
    }

    private static long total(Snapshot snapshot, RequestClass cls, boolean refusedOnly) {
        long sum = 0;
        for (var second : snapshot.seconds()) {
            ClassCounts counts = second.byClass().get(cls);
            if (counts != null) {
                sum += counts.refused().values().stream().mapToLong(Long::longValue).sum();
                if (!refusedOnly) {
                    sum += counts.admitted() + counts.delayed();
                }
            }
        }
        return sum;
    }

    @Test
    void oneClientNeverHasMoreThanMaxConcurrentInFlight() throws Exception {
        ThrottleEngine engine = EngineFixture.engine(clock, EngineFixture.withoutBrowserCheck(Policy.defaults())
                .withHitStack(new Policy.HitStack(60, 1_000_000)).withPerClient(new Policy.PerClient(3)));
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        LongAdder admitted = new LongAdder();
        int perThread = 10_000; // under the per-second saturation of a client's bucket (65,535)
        hammer(() -> {
            for (int i = 0; i < perThread; i++) {
                if (engine.decide(Request.direct("192.0.2.1", BROWSER)) instanceof Decision.Admit admit) {
                    int now = running.incrementAndGet();
                    mostRunning.accumulateAndGet(now, Math::max);
                    admitted.increment();
                    running.decrementAndGet();
                    admit.admission().complete(200, 1000);
                }
            }
            return null;
        });
        assertThat(mostRunning.get()).isBetween(1, 3);
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.load().inFlight()).isZero();
        assertThat(total(snapshot, RequestClass.BROWSER, false)).isEqualTo((long) THREADS * perThread);
        assertThat(total(snapshot, RequestClass.BROWSER, true)).isEqualTo(THREADS * perThread - admitted.sum());
        assertThat(snapshot.topClients().get(0).hitsInWindow()).isEqualTo(THREADS * perThread);
    }

    @Test
    void theHitStackAdmitsExactlyMaxHitsAcrossThreads() throws Exception {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults()
                .withHitStack(new Policy.HitStack(15, 100)).withPerClient(new Policy.PerClient(100))
                .withPerAddress(UNLIMITED_ADDRESSES));
        LongAdder admitted = new LongAdder();
        hammer(() -> {
            for (int i = 0; i < 1_000; i++) {
                if (engine.decide(Request.direct("192.0.2.1", CURL)) instanceof Decision.Admit admit) {
                    admitted.increment();
                    admit.admission().complete(200, 1000);
                }
            }
            return null;
        });
        assertThat(admitted.sum()).isEqualTo(100);
    }

    @Test
    void exactlyOneOfManyRacingCrawlersIsServedWithinTheAllCrawlersGap() throws Exception {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults()
                .withCrawlers(new Policy.Crawlers(30, 2, true, Map.of("Googlebot", List.of("10.0.0.0/16")))));
        AtomicInteger next = new AtomicInteger();
        LongAdder admitted = new LongAdder();
        hammer(() -> {
            for (int i = 0; i < 2_000; i++) {
                int n = next.getAndIncrement();
                Request request = Request.direct("10.0." + (n >> 8) + "." + (n & 255), "Googlebot/2.1");
                if (engine.decide(request) instanceof Decision.Admit admit) {
                    admitted.increment();
                    admit.admission().complete(200, 1000);
                }
            }
            return null;
        });
        assertThat(admitted.sum()).isEqualTo(1);
    }

    @Test
    void loadNeverExceedsMaxActiveOrMaxWaitingAndEverySlotComesBack() throws Exception {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults()
                .withHitStack(new Policy.HitStack(60, 1_000_000)).withLoad(new Policy.Load(5, 3, 500))
                .withPerAddress(UNLIMITED_ADDRESSES));
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        AtomicInteger parked = new AtomicInteger();
        AtomicInteger mostParked = new AtomicInteger();
        LongAdder decisions = new LongAdder();
        AtomicInteger seed = new AtomicInteger(42);
        hammer(() -> {
            Random random = new Random(seed.getAndIncrement());
            List<Decision.Admit> held = new ArrayList<>();
            List<Decision.Wait> waits = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                Decision decision = engine.decide(Request.direct("198.51.100." + random.nextInt(200), CURL));
                handle(decision, held, waits, running, mostRunning, parked, mostParked, decisions);
                if (!waits.isEmpty() && random.nextInt(3) == 0) {
                    Decision.Wait wait = waits.remove(random.nextInt(waits.size()));
                    parked.decrementAndGet();
                    if (random.nextInt(4) == 0) {
                        wait.deferral().cancel();
                        decisions.increment(); // a cancelled wait is no outcome; count it as handled
                        cancelled.increment();
                    } else {
                        handle(wait.deferral().resume(), held, waits, running, mostRunning, parked, mostParked,
                                decisions);
                    }
                }
                if (!held.isEmpty() && random.nextBoolean()) {
                    running.decrementAndGet();
                    held.remove(random.nextInt(held.size())).admission().complete(200, 1000);
                }
            }
            for (Decision.Wait wait : waits) {
                parked.decrementAndGet();
                wait.deferral().cancel();
                decisions.increment();
                cancelled.increment();
            }
            for (Decision.Admit admit : held) {
                running.decrementAndGet();
                admit.admission().complete(200, 1000);
            }
            return null;
        });
        assertThat(mostRunning.get()).isBetween(1, 5);
        assertThat(mostParked.get()).isBetween(1, 3);
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.load().inFlight()).isZero();
        assertThat(snapshot.load().waiting()).isZero();
        assertThat(total(snapshot, RequestClass.BOT, false) + cancelled.sum()).isEqualTo(decisions.sum());
        assertThat(engine.decide(Request.direct("198.51.100.1", CURL))).isInstanceOf(Decision.Admit.class);
    }

    @Test
    void perClientConcurrencyHoldsWhileTheTableEvictsClientsWithRequestsRunning() throws Exception {
        // 64 clients through a table of 16: clients are evicted all the time, many with requests in flight
        int clients = 64;
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults().withMaxTrackedClients(16), clock,
                EngineFixture.withoutBrowserCheck(Policy.defaults().withHitStack(new Policy.HitStack(60, 1_000_000))
                        .withPerClient(new Policy.PerClient(2)).withLoad(new Policy.Load(1_000_000, 10, 500))
                        .withPerAddress(UNLIMITED_ADDRESSES)),
                new FakeClassifier());
        AtomicIntegerArray running = new AtomicIntegerArray(clients);
        AtomicInteger mostRunning = new AtomicInteger();
        LongAdder admitted = new LongAdder();
        AtomicInteger seed = new AtomicInteger(7);
        hammer(() -> {
            Random random = new Random(seed.getAndIncrement());
            List<int[]> heldClients = new ArrayList<>();
            List<Decision.Admit> held = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                int c = random.nextInt(clients);
                if (engine.decide(Request.direct("203.0.113." + c, BROWSER)) instanceof Decision.Admit admit) {
                    mostRunning.accumulateAndGet(running.incrementAndGet(c), Math::max);
                    admitted.increment();
                    heldClients.add(new int[] {c});
                    held.add(admit);
                }
                if (!held.isEmpty() && random.nextInt(3) != 0) {
                    int at = random.nextInt(held.size());
                    running.decrementAndGet(heldClients.remove(at)[0]); // before the engine frees the slot
                    held.remove(at).admission().complete(200, 1000);
                }
            }
            for (int at = 0; at < held.size(); at++) {
                running.decrementAndGet(heldClients.get(at)[0]);
                held.get(at).admission().complete(200, 1000);
            }
            return null;
        });
        assertThat(mostRunning.get()).isBetween(1, 2);
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.load().inFlight()).isZero();
        assertThat(snapshot.clients().evicted()).isPositive();
        assertThat(admitted.sum()).isGreaterThan(THREADS * 20_000L / 2);
        // no count was lost or leaked: every client has exactly its two slots again
        for (int c = 0; c < clients; c++) {
            Decision.Admit one = EngineFixture.admitted(EngineFixture.decide(engine, "203.0.113." + c, BROWSER));
            Decision.Admit two = EngineFixture.admitted(EngineFixture.decide(engine, "203.0.113." + c, BROWSER));
            EngineFixture.refused(EngineFixture.decide(engine, "203.0.113." + c, BROWSER), Reason.CLIENT_CONCURRENCY);
            one.admission().complete(200, 1000);
            two.admission().complete(200, 1000);
        }
        assertThat(engine.snapshot().load().inFlight()).isZero();
    }

    @Test
    void perAddressConcurrencyHoldsWhileUserAgentsJoinAndEverySlotComesBack() throws Exception {
        // each address starts with one user agent (which counts its address's slots itself) until the others join
        int addresses = 200;
        ThrottleEngine engine = EngineFixture.engine(clock, EngineFixture.withoutBrowserCheck(Policy.defaults())
                .withHitStack(new Policy.HitStack(60, 1_000_000)).withPerClient(new Policy.PerClient(1_000))
                .withLoad(new Policy.Load(1_000_000, 10, 500))
                .withPerAddress(new Policy.PerAddress(32, 64, 60, 1_000_000, 3)));
        AtomicIntegerArray running = new AtomicIntegerArray(addresses);
        AtomicInteger mostRunning = new AtomicInteger();
        AtomicInteger thread = new AtomicInteger();
        hammer(() -> {
            int t = thread.getAndIncrement();
            Random random = new Random(t);
            for (int a = 0; a < addresses; a++) {
                List<Decision.Admit> held = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    if (engine.decide(Request.direct(address(a), BROWSER + " agent-" + (t + i) % THREADS))
                            instanceof Decision.Admit admit) {
                        mostRunning.accumulateAndGet(running.incrementAndGet(a), Math::max);
                        held.add(admit);
                    }
                    if (!held.isEmpty() && random.nextBoolean()) {
                        running.decrementAndGet(a); // before the engine frees the slot
                        held.remove(random.nextInt(held.size())).admission().complete(200, 1000);
                    }
                }
                for (Decision.Admit admit : held) {
                    running.decrementAndGet(a);
                    admit.admission().complete(200, 1000);
                }
            }
            return null;
        });
        assertThat(mostRunning.get()).isBetween(1, 3);
        // no slot was lost or leaked: every address has exactly its three again, whichever user agent asks
        for (int a = 0; a < addresses; a++) {
            List<Decision.Admit> again = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                again.add(EngineFixture.admitted(EngineFixture.decide(engine, address(a), BROWSER + " agent-" + i)));
            }
            EngineFixture.refused(EngineFixture.decide(engine, address(a), BROWSER + " agent-9"),
                    Reason.ADDRESS_CONCURRENCY);
            again.forEach(admit -> admit.admission().complete(200, 1000));
        }
        assertThat(engine.snapshot().load().inFlight()).isZero();
    }

    private static String address(int a) {
        return "198.51." + (a / 250) + "." + (1 + a % 250);
    }

    private static void handle(Decision decision, List<Decision.Admit> held, List<Decision.Wait> waits,
                               AtomicInteger running, AtomicInteger mostRunning, AtomicInteger parked,
                               AtomicInteger mostParked, LongAdder decisions) {
        if (decision instanceof Decision.Admit admit) {
            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            held.add(admit);
            decisions.increment();
        } else if (decision instanceof Decision.Wait wait) {
            mostParked.accumulateAndGet(parked.incrementAndGet(), Math::max);
            waits.add(wait);
        } else {
            decisions.increment();
        }
    }
}
