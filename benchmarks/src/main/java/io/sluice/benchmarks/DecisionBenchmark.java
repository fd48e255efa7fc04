package io.sluice.benchmarks;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.RequestCost;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one throttling decision with 100,000 tracked clients picked at random, against two baselines
 * over the same keys in the same run: a bare {@code ConcurrentHashMap.get} (the least any per-client
 * limiter does) and a Bucket4j {@code tryConsume} behind a {@code ConcurrentHashMap} (a per-client token
 * bucket). Run with {@code -t 1} and {@code -t 2}.
 *
 * <p>Every engine variant runs the per-address aggregate (a second hit stack and concurrency count per request,
 * always on); {@code engineDecideRoutes} adds route weights over a mix of pages and static assets.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// A decision at 100,000 clients keeps getting cheaper for several seconds (first accesses reported to the
// table's policy, hit rings allocated, JIT), so the warm-up is long enough to measure the steady state.
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(3)
public class DecisionBenchmark {

    static final int TRACKED = 100_000;

    /**
     * Distinct clients, all tracked. The figure is 100,000 (memory access dominates); run with
     * {@code -p clients=1000} to see the cost with every table in the CPU's caches.
     */
    @Param({"100000"})
    int clients;

    /** A client key as a limiter keyed by (IP, user agent) would build it per request. */
    record ClientKey(String ip, String userAgent) {
    }

    Request[] requests;
    Request[] pagesAndAssets;
    ThrottleEngine engine;
    ThrottleEngine engineNoBans;
    ThrottleEngine engineRoutes;
    ConcurrentHashMap<ClientKey, long[]> bareMap;
    ConcurrentHashMap<ClientKey, Bucket> buckets;

    @Setup(Level.Trial)
    public void setUp() {
        requests = Clients.requests(new Random(7), clients);
        CrawlerListClassifier classifier = CrawlerListClassifier.bundled();
        engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), benchmarkPolicy(true),
                classifier);
        engineNoBans = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), benchmarkPolicy(false),
                classifier);
        pagesAndAssets = Clients.requests(new Random(7), clients, Clients.PAGE_AND_ASSETS);
        engineRoutes = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), routesPolicy(), classifier);
        trackAll(engine, requests);
        trackAll(engineNoBans, requests);
        trackAll(engineRoutes, pagesAndAssets);
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

    /**
     * The decision under test: the default policy with limits high enough that requests are admitted
     * (the admitted path runs every rule); {@code withBans} adds 100 IP bans, 20 CIDR bans and 10
     * user-agent bans that do not match, so the ban rule has real lists to look through.
     */
    static Policy benchmarkPolicy(boolean withBans) {
        Policy d = Policy.defaults();
        List<Ban> bans = new ArrayList<>();
        Instant created = Instant.parse("2026-01-01T00:00:00Z");
        Random random = new Random(3);
        for (int i = 0; i < 100; i++) {
            bans.add(new Ban("ip" + i, BanType.IP, "240.0." + random.nextInt(256) + "." + random.nextInt(256),
                    "bench", "bench", created, null));
        }
        for (int i = 0; i < 20; i++) {
            bans.add(new Ban("net" + i, BanType.IP, "2001:db8:" + Integer.toHexString(i) + "::/48", "bench",
                    "bench", created, null));
        }
        for (int i = 0; i < 10; i++) {
            bans.add(new Ban("ua" + i, BanType.AGENT, "NoSuchSpider" + i, "bench", "bench", created, null));
        }
        // No routes: every request weighs 1, as before routes existed. The per-address aggregate is always on (it
        // cannot be turned off), with limits high enough that every request is admitted.
        return d.withHitStack(new Policy.HitStack(15, 1_000_000)).withLoad(new Policy.Load(10_000, 10, 500))
                .withPerClient(new Policy.PerClient(1_000)).withBans(withBans ? bans : List.of())
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000_000, 1_000_000)).withRoutes(List.of());
    }

    /**
     * {@link #benchmarkPolicy} with bans, and routes as a site would have them: a search page with its own limit
     * (high enough to admit), a regular-expression route that does not match, and the default static-asset route
     * last, so an asset request is matched against all three.
     */
    static Policy routesPolicy() {
        List<Route> routes = new ArrayList<>();
        routes.add(new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(), 1,
                new Policy.HitStack(15, 1_000_000), null));
        routes.add(new Route(Route.Match.REGEX, "/api/v[0-9]+/export", null, List.of(), List.of(), List.of(), 5, null,
                null));
        routes.addAll(Route.DEFAULTS);
        return benchmarkPolicy(true).withRoutes(routes);
    }

    static Request pick(Request[] requests) {
        return requests[ThreadLocalRandom.current().nextInt(requests.length)];
    }

    /** Every client tracked (seen twice, so in the main table) and every user agent cached. */
    static void trackAll(ThrottleEngine engine, Request[] requests) {
        for (Request r : requests) {
            finish(engine.decide(r));
            finish(engine.decide(r));
        }
    }

    /** Completes an admitted request at once, as a caller does when its upstream answers. */
    static Decision finish(Decision decision) {
        if (decision instanceof Decision.Admit admit) {
            admit.admission().complete(200, 1_000_000);
        }
        return decision;
    }

    /** What the front ends report: a millisecond's upstream time, no request body, a page out. */
    static final RequestCost COST = new RequestCost(400_000, 1_000_000, 0, 8_192);

    /** {@link #finish} with the request's cost, as the front ends complete it (counted per key: issue #47). */
    static Decision finishCosted(Decision decision) {
        if (decision instanceof Decision.Admit admit) {
            admit.admission().complete(200, COST.upstreamNanos(), COST);
        }
        return decision;
    }

    /** A full Sluice decision (classification cached, every rule evaluated) and its completion. */
    @Benchmark
    public Decision engineDecide() {
        return finish(engine.decide(pick(requests)));
    }

    /**
     * {@link #engineDecide} completed with its cost, as the front ends do since issue #47: the cost counted on the
     * client, its address, its network, class and route. The goal: at most 1.1x {@link #engineDecide}.
     */
    @Benchmark
    public Decision engineDecideCosted() {
        return finishCosted(engine.decide(pick(requests)));
    }

    /** The same with an empty ban list: what the ban lists cost. */
    @Benchmark
    public Decision engineDecideNoBans() {
        return finish(engineNoBans.decide(pick(requests)));
    }

    /**
     * The same as {@link #engineDecide} with route weights on: requests for pages and static assets (a quarter
     * pages) matched against three routes, static assets weighing 0.
     */
    @Benchmark
    public Decision engineDecideRoutes() {
        return finish(engineRoutes.decide(pick(pagesAndAssets)));
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
