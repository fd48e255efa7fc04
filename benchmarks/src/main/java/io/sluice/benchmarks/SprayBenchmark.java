package io.sluice.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of a decision for a client never seen before: a spray of distinct addresses, each sending one request
 * (the attack that fills a naive per-client table). The engine's tables are at their default size and full of
 * 100,000 tracked clients; every operation comes from a new address, so the newcomer path runs each time (its
 * table is full too, so each new client evicts an older one). Baseline in the same run: a Bucket4j token bucket
 * created for each new key in a Caffeine cache bounded to the same 100,000 clients, the least a bounded per-client
 * limiter does for a new client. Both build the address text per operation, as a server parsing a request does.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(2)
public class SprayBenchmark {

    private static final String USER_AGENT = Clients.USER_AGENTS[0];

    ThrottleEngine engine;
    Cache<DecisionBenchmark.ClientKey, Bucket> buckets;

    /** Each thread walks its own part of the address space; no address repeats within a run. */
    @State(Scope.Thread)
    public static class Addresses {
        private static final AtomicInteger THREADS = new AtomicInteger();
        private int next;

        @Setup(Level.Trial)
        public void setUp() {
            next = THREADS.getAndIncrement() << 28;
        }

        /** The next address: a bijection of the counter, so consecutive addresses do not share a prefix. */
        String next() {
            int a = (next++) * 0x9E3779B1;
            return ((a >>> 24) & 0xff) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
                DecisionBenchmark.benchmarkPolicy(true), CrawlerListClassifier.bundled());
        // the main table full of clients seen twice, as on a busy site (a spray address is one of them about once
        // in 40,000 operations)
        DecisionBenchmark.trackAll(engine, Clients.requests(new Random(7), DecisionBenchmark.TRACKED));
        buckets = Caffeine.newBuilder().maximumSize(DecisionBenchmark.TRACKED).executor(Runnable::run).build();
    }

    /** A full decision for a new client (classification cached: the spray keeps one user agent). */
    @Benchmark
    public Decision engineDecideNewClient(Addresses addresses) {
        return DecisionBenchmark.finish(engine.decide(Request.direct(addresses.next(), USER_AGENT)));
    }

    @Benchmark
    public boolean baselineBucket4jNewKey(Addresses addresses) {
        DecisionBenchmark.ClientKey key = new DecisionBenchmark.ClientKey(addresses.next(), USER_AGENT);
        return buckets.get(key, k -> Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(100).refillGreedy(100, Duration.ofSeconds(1)).build())
                .build()).tryConsume(1);
    }
}
