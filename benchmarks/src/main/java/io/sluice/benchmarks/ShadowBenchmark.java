package io.sluice.benchmarks;

import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.engine.whatif.WhatIfReport;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Random;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a shadow policy costs the request path: one decision (and its completion) with 100,000 tracked clients,
 * without a shadow and with one installed, in the same run (goal: under 1.3x). The shadow's own thread runs
 * beside the benchmark as it would beside the front end.
 *
 * <p>Two regimes. Unpaced ({@code withoutShadow}, {@code withShadow}): decisions back to back, a million or so a
 * second, which the shadow's thread cannot keep up with: it judges flat out on the other core (its own table of
 * 100,000 clients competing for the shared cache) and drops what it cannot queue; the tear-down prints how many it
 * judged and dropped. Paced ({@code ...Paced}): each request also spends {@link #OTHER_WORK_NANOS} on the rest of
 * a front end's work (25,000 requests a second, about what one core of this machine forwards), the regime a
 * shadow meets beside a real front end, where it judges everything; the decision's own time is measured around
 * it with {@code nanoTime} and printed per iteration as "paced decision: N ns" (the score itself is mostly the
 * pacing).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(3)
public class ShadowBenchmark {
    /** The rest of a request's work on a front end's core, spent spinning between paced decisions. */
    static final long OTHER_WORK_NANOS = 40_000;

    Request[] requests;
    ThrottleEngine plain;
    ThrottleEngine shadowed;
    LiveShadow shadow;

    @Setup(Level.Trial)
    public void setUp() {
        requests = Clients.requests(new Random(7), DecisionBenchmark.TRACKED);
        CrawlerListClassifier classifier = CrawlerListClassifier.bundled();
        Policy live = DecisionBenchmark.benchmarkPolicy(true);
        plain = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), live, classifier);
        shadowed = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), live, classifier);
        DecisionBenchmark.trackAll(plain, requests);
        DecisionBenchmark.trackAll(shadowed, requests);
        shadow = new LiveShadow(shadowed, EngineConfig.defaults(), classifier, null, InstantSource.system());
        // a candidate that differs (a lower hit limit), so the shadow's run does real work
        shadow.install(live.withHitStack(new Policy.HitStack(15, 100)));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        WhatIfReport report = shadow.report(0);
        System.out.printf(Locale.ROOT, "%nshadow: %,d decisions judged in its window, %,d dropped since installed%n",
                report.requests(), report.dropped());
        shadow.close();
    }

    /** The decision time measured in the paced benchmarks, per iteration. */
    @State(Scope.Thread)
    public static class DecisionClock {
        long nanos;
        long decisions;

        @Setup(Level.Iteration)
        public void reset() {
            nanos = 0;
            decisions = 0;
        }

        @TearDown(Level.Iteration)
        public void print() {
            if (decisions > 0) {
                System.out.printf(Locale.ROOT, "%npaced decision: %.0f ns (%,d decisions)%n",
                        (double) nanos / decisions, decisions);
            }
        }

        Decision timed(ThrottleEngine engine, Request request) {
            long start = System.nanoTime();
            Decision decision = DecisionBenchmark.finish(engine.decide(request));
            long end = System.nanoTime();
            nanos += end - start;
            decisions++;
            while (System.nanoTime() - end < OTHER_WORK_NANOS) {
                Thread.onSpinWait();
            }
            return decision;
        }
    }

    /** A full decision and its completion, no shadow installed. */
    @Benchmark
    public Decision withoutShadow() {
        return DecisionBenchmark.finish(plain.decide(DecisionBenchmark.pick(requests)));
    }

    /** The same with a shadow installed: the decision is also queued for the candidate, and so is its completion. */
    @Benchmark
    public Decision withShadow() {
        return DecisionBenchmark.finish(shadowed.decide(DecisionBenchmark.pick(requests)));
    }

    /** {@link #withoutShadow} at a front end's rate. */
    @Benchmark
    public Decision withoutShadowPaced(DecisionClock clock) {
        return clock.timed(plain, DecisionBenchmark.pick(requests));
    }

    /** {@link #withShadow} at a front end's rate, where the shadow judges every request. */
    @Benchmark
    public Decision withShadowPaced(DecisionClock clock) {
        return clock.timed(shadowed, DecisionBenchmark.pick(requests));
    }
}
