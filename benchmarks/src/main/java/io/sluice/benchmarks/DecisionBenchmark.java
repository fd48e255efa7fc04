package io.sluice.benchmarks;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.sluice.engine.Request;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * Cost of one throttling decision with 100,000 tracked clients picked at random, against two baselines
 * over the same keys in the same run: a bare {@code ConcurrentHashMap.get} (the least any per-client
 * limiter does) and a Bucket4j {@code tryConsume} behind a {@code ConcurrentHashMap} (a per-client token
 * bucket). Run with {@code -t 1} and {@code -t 2}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class DecisionBenchmark {

    static final int TRACKED = 100_000;

    /** A client key as a limiter keyed by (IP, user agent) would build it per request. */
    record ClientKey(String ip, String userAgent) {
    }

    Request[] requests;
    ConcurrentHashMap<ClientKey, long[]> bareMap;
    ConcurrentHashMap<ClientKey, Bucket> buckets;

    @Setup(Level.Trial)
    public void setUp() {
        requests = Clients.requests(new Random(7), TRACKED);
        bareMap = new ConcurrentHashMap<>();
        buckets = new ConcurrentHashMap<>();
        for (Request r : requests) {
            ClientKey key = new ClientKey(r.peerAddress(), r.userAgent());
            bareMap.put(key, new long[1]);
            // generous limits so every call consumes (the refusal path is not the one measured)
            buckets.put(key, Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(1_000_000_000L)
                            .refillGreedy(1_000_000_000L, Duration.ofSeconds(1)).build())
                    .build());
        }
    }

    static Request pick(Request[] requests) {
        return requests[ThreadLocalRandom.current().nextInt(requests.length)];
    }

    @Benchmark
    public long[] baselineMapGet() {
        Request r = pick(requests);
        return bareMap.get(new ClientKey(r.peerAddress(), r.userAgent()));
    }

    @Benchmark
    public boolean baselineBucket4j() {
        Request r = pick(requests);
        return buckets.get(new ClientKey(r.peerAddress(), r.userAgent())).tryConsume(1);
    }
}
