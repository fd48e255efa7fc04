package io.sluice.benchmarks;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import java.time.InstantSource;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The decision of {@link DecisionBenchmark#engineDecide()} in a plain loop, for a profiler: the same
 * 100,000 clients, policy and classifier, no JMH machinery in the stacks. Prints the mean cost per
 * decision once a second.
 *
 * <p>Run: {@code java -XX:StartFlightRecording=filename=decide.jfr,settings=profile -cp
 * benchmarks/target/benchmarks.jar io.sluice.benchmarks.DecisionProfile [seconds] [bans: true|false] [clients]},
 * then {@code jfr print --events jdk.ExecutionSample decide.jfr} (or {@code jdk.ObjectAllocationSample}).
 */
public final class DecisionProfile {

    private DecisionProfile() {
    }

    public static void main(String[] args) {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        boolean withBans = args.length <= 1 || Boolean.parseBoolean(args[1]);
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : DecisionBenchmark.TRACKED;
        Request[] requests = Clients.requests(new Random(7), clients);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
                DecisionBenchmark.benchmarkPolicy(withBans), CrawlerListClassifier.bundled());
        DecisionBenchmark.trackAll(engine, requests);
        long sink = 0;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long start = System.nanoTime();
            int n = 0;
            while (System.nanoTime() - start < 1_000_000_000L) {
                for (int i = 0; i < 1_000; i++) {
                    Request r = requests[ThreadLocalRandom.current().nextInt(requests.length)];
                    sink += DecisionBenchmark.finish(engine.decide(r)).client().requestClass().ordinal();
                }
                n += 1_000;
            }
            System.out.printf("%.0f ns/decision%n", (System.nanoTime() - start) / (double) n);
        }
        System.out.println(sink == 42 ? "" : "done");
    }
}
