package io.sluice.benchmarks;

import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * What {@link ThrottleEngine#MAX_AUTOMATIC_BANS} automatic bans cost a decision (issue #27: at most 1.1x the cost
 * with none): {@link DecisionBenchmark}'s decision (100,000 tracked clients, none of them banned) with
 * <ul>
 *   <li>{@code none}: no automatic ban;</li>
 *   <li>{@code installed}: 10,000 in the policy, as escalation leaves them once written (half exact clients, half
 *       addresses of a /24 or /64), compiled into the ban maps;</li>
 *   <li>{@code pending}: 10,000 in force in the engine's in-memory set, not written (a writer that takes none).</li>
 * </ul>
 * Run: {@code java -jar benchmarks/target/benchmarks.jar AutomaticBansBenchmark -t 1 -f 3 -wi 6 -w 3 -i 5 -r 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 6, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(3)
public class AutomaticBansBenchmark {

    @Param({"none", "installed", "pending"})
    String bans;

    Request[] requests;
    ThrottleEngine engine;

    @Setup(Level.Trial)
    public void setUp() {
        requests = Clients.requests(new Random(7), DecisionBenchmark.TRACKED);
        Policy policy = DecisionBenchmark.benchmarkPolicy(true);
        CrawlerListClassifier classifier = CrawlerListClassifier.bundled();
        switch (bans) {
            case "none" -> engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), policy,
                    classifier);
            case "installed" -> engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
                    policy.withBans(installed(policy.bans())), classifier);
            case "pending" -> engine = pending(policy, classifier);
            default -> throw new IllegalArgumentException(bans);
        }
        DecisionBenchmark.trackAll(engine, requests);
    }

    /** The policy's bans and 10,000 automatic ones on addresses no benchmark client has (240.0.0.0/4, 2001:db8:f::). */
    static List<Ban> installed(List<Ban> operators) {
        List<Ban> all = new ArrayList<>(operators);
        Instant created = Instant.parse("2026-01-01T00:00:00Z");
        Instant expires = created.plusSeconds(100L * 365 * 86_400);
        for (int i = 0; i < ThrottleEngine.MAX_AUTOMATIC_BANS; i++) {
            String value = switch (i % 3) {
                case 0 -> "241." + (i >> 8 & 255) + "." + (i & 255) + ".0/24";
                case 1 -> "2001:db8:f:" + Integer.toHexString(i) + "::/64";
                default -> "242." + (i >> 8 & 255) + "." + (i & 255) + ".9|curl/8.5.0";
            };
            all.add(new Ban("auto-" + i, value.contains("|") ? BanType.CLIENT : BanType.IP, value, "escalation",
                    ThrottleEngine.AUTOMATIC_BAN_AUTHOR, created, expires));
        }
        return all;
    }

    /**
     * An engine whose escalation banned 10,000 offenders (clients refused once) and whose writer took none, so they
     * stay in its in-memory set; then the benchmark's limits, without escalation.
     */
    static ThrottleEngine pending(Policy policy, CrawlerListClassifier classifier) {
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(),
                policy.withHitStack(new Policy.HitStack(60, 1)).withEscalation(List.of(new Escalation(
                        Escalation.Scope.CLIENT, 1, 60, 86_400, 1.0, 86_400))), classifier);
        engine.proposeAutomaticBansTo(ban -> false);
        for (int i = 0; i < ThrottleEngine.MAX_AUTOMATIC_BANS; i++) {
            Request offender = Request.direct("242." + (i >> 8 & 255) + "." + (i & 255) + ".9", "curl/8.5.0");
            DecisionBenchmark.finish(engine.decide(offender));
            DecisionBenchmark.finish(engine.decide(offender));
        }
        if (engine.pendingAutomaticBans().size() != ThrottleEngine.MAX_AUTOMATIC_BANS) {
            throw new IllegalStateException("expected " + ThrottleEngine.MAX_AUTOMATIC_BANS + " automatic bans, got "
                    + engine.pendingAutomaticBans().size());
        }
        // the bare engine's own writer (no server here, so no audit: the benchmark measures decisions, not changes)
        engine.claimPolicyWriter().update(p -> policy);
        return engine;
    }

    @Benchmark
    public Decision decide() {
        return DecisionBenchmark.finish(engine.decide(DecisionBenchmark.pick(requests)));
    }
}
