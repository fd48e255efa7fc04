package io.sluice.benchmarks;

import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClientTableStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Heap cost of tracked clients. Measures retained heap (used heap after full GCs) with an engine
 * at the default table size:
 * <ol>
 *   <li>empty engine;</li>
 *   <li>after {@code capacity} distinct clients, each seen twice (the main table full): (2 - 1) / capacity =
 *   bytes per client;</li>
 *   <li>after a spray of 1,000,000 distinct clients: the table must stay bounded.</li>
 * </ol>
 * Clients are random IPv4 peers with one browser user agent; each request is completed. A client seen once
 * is a newcomer (a small table of its own); its second request moves it to the main table, which is what
 * the per-client figure measures. The spray sends one request per client.
 * The clock advances 1 ms per request so per-second telemetry behaves as in a real spray.
 * Run: {@code java -Xmx1g -XX:+UseSerialGC -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.MemoryProbe}.
 */
public final class MemoryProbe {

    private MemoryProbe() {
    }

    /** A clock the probe moves by hand. */
    private static final class SteppingClock implements InstantSource {
        private long millis = Instant.parse("2026-11-22T10:00:00Z").toEpochMilli();

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        void advance() {
            millis++;
        }
    }

    public static void main(String[] args) {
        int spray = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        EngineConfig config = EngineConfig.defaults();
        SteppingClock clock = new SteppingClock();
        ThrottleEngine engine = new ThrottleEngine(config, clock, Policy.defaults(), CrawlerListClassifier.bundled());
        String ua = Clients.USER_AGENTS[0];
        send(engine, clock, ua, 0, 10, 2); // warm the classifier cache and lazy structures
        long empty = retainedHeap();
        int capacity = config.maxTrackedClients();
        send(engine, clock, ua, 10, capacity, 2);
        long full = retainedHeap();
        ClientTableStats atCapacity = engine.snapshot().clients();
        send(engine, clock, ua, 10 + capacity, spray - capacity, 1);
        long afterSpray = retainedHeap();
        ClientTableStats afterStats = engine.snapshot().clients();
        System.out.printf("java %s, max heap %d MB%n", System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("default table size: %d clients%n", capacity);
        System.out.printf("retained heap, empty engine: %.1f MB%n", empty / 1e6);
        System.out.printf("after %d distinct clients: %.1f MB, tracked %d -> %.0f bytes per tracked client%n",
                capacity, full / 1e6, atCapacity.tracked(), (full - empty) / (double) atCapacity.tracked());
        System.out.printf("after a spray of %d distinct clients: %.1f MB, tracked %d, evicted %d%n",
                spray, afterSpray / 1e6, afterStats.tracked(), afterStats.evicted());
    }

    private static void send(ThrottleEngine engine, SteppingClock clock, String ua, int first, int count,
                             int requestsEach) {
        for (int n = 0; n < count * requestsEach; n++) {
            int i = first + n / requestsEach;
            // distinct addresses: 10.0.0.0/8 would do, but spread over the whole space like a real spray
            int bits = i * 0x9E3779B1 + 0x01000000;
            String ip = ((bits >>> 24) & 0xFF) + "." + ((bits >>> 16) & 0xFF) + "." + ((bits >>> 8) & 0xFF) + "."
                    + (bits & 0xFF);
            Decision d = engine.decide(Request.direct(ip, ua));
            if (d instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1_000_000);
            } else if (d instanceof Decision.Wait wait) {
                wait.deferral().cancel();
            }
            clock.advance();
        }
    }

    private static long retainedHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
