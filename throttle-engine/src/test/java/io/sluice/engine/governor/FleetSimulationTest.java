package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fleet of issue #31 on simulated time: 40 workers share a frontier of 20 sites of 1 to 10 requests per
 * second (67 in all, 429 above each one's capacity in any sliding second, latency 20-200 ms); each worker
 * asks for a permit for any of the 20 ({@link CrawlGovernor#acquireAny}), held by the server up to 2 s as
 * the permit API does, fetches the one granted and reports. Deterministic (seeded); the real-HTTP version
 * is the benchmarks module's {@code FleetRun} (docs/BENCHMARKS.md, "Crawl governor: a fleet").
 *
 * <p>The fleet's share of its capacity is the AIMD cycle's mean: cut to {@code decreaseFactor} of the rate
 * at a slow-down, fast back to 95% of it, then slowly up to the next. At the default 0.8 and at 0.9 alike the
 * issue's goals hold (94.6% and 95.7% of the fleet's capacity); with the plain additive climb from the cut
 * the fleet got 88% at 0.8.
 */
class FleetSimulationTest {
    static final double[] CAPACITIES = {1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 6, 10};
    private static final long MILLI = 1_000_000L;
    private static final long HOLD = 2_000 * MILLI;

    private record Event(long at, long seq, Runnable action) {
    }

    private final SimClock clock = new SimClock();
    private CrawlGovernor governor;
    private final PriorityQueue<Event> events = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    private final SplittableRandom random = new SplittableRandom(42);
    private final List<String> frontier = new ArrayList<>();
    private final List<RateLimitedSite> sites = new ArrayList<>();
    /** Per site: {served, refused} from the second half. */
    private final long[][] counts = new long[CAPACITIES.length][2];
    private long seq;
    private long calls;
    private long grants;

    @ParameterizedTest(name = "decreaseFactor {0}")
    @ValueSource(doubles = {0.8, 0.9})
    void fortyWorkersServeTwentySitesNearTheirCapacityWithFewPermitCalls(double decreaseFactor) {
        GovernorPolicy policy = GovernorPolicy.DEFAULTS.withDecreaseFactor(decreaseFactor);
        governor = new CrawlGovernor(clock, () -> policy, new SplittableRandom(41), 1_000, Map.of());
        double seconds = 90;
        for (int i = 0; i < CAPACITIES.length; i++) {
            double capacity = CAPACITIES[i];
            frontier.add("site" + i + ".example");
            sites.add(new RateLimitedSite(() -> capacity, LatencyModel.uniform(20, 200),
                    RateLimitedSite.Refusal.TOO_MANY, 100 + i));
        }
        for (int w = 0; w < 40; w++) {
            schedule(random.nextLong(1, 50) * MILLI, this::call);
        }
        long end = (long) (seconds * 1e9);
        while (!events.isEmpty() && events.peek().at <= end) {
            Event event = events.poll();
            clock.setNanos(event.at);
            event.action.run();
        }

        double half = seconds / 2;
        double served = 0;
        double worst = Double.MAX_VALUE;
        long refused = 0;
        long all = 0;
        StringBuilder table = new StringBuilder();
        for (int i = 0; i < CAPACITIES.length; i++) {
            double rate = counts[i][0] / half;
            served += rate;
            worst = Math.min(worst, rate / CAPACITIES[i]);
            refused += counts[i][1];
            all += counts[i][0] + counts[i][1];
            table.append(String.format("%n%4.0f req/s: %5.2f served/s, %4.1f%% 429, learned %.2f", CAPACITIES[i],
                    rate, 100.0 * counts[i][1] / Math.max(1, counts[i][0] + counts[i][1]),
                    governor.domain(frontier.get(i)).orElseThrow().rate()));
        }
        assertThat(served / 67).as("fleet capacity used, second half%s", table).isGreaterThanOrEqualTo(0.90);
        assertThat(worst).as("the worst site's share of its capacity%s", table).isGreaterThanOrEqualTo(0.70);
        assertThat(refused / (double) all).as("429 share%s", table).isLessThanOrEqualTo(0.05);
        assertThat(calls / (double) grants).as("permit calls per granted fetch").isLessThanOrEqualTo(2.0);
    }

    /** A worker's permit call: held up to {@link #HOLD}, re-asked by the server when the first slot opens. */
    private void call() {
        calls++;
        ask(clock.nanos() + HOLD);
    }

    private void ask(long deadline) {
        Permit permit = governor.acquireAny(frontier);
        long now = clock.nanos();
        if (!permit.granted()) {
            long wait = permit.waitMillis() * MILLI;
            if (now + wait <= deadline) {
                schedule(now + wait, () -> ask(deadline)); // the server asks again when the slot opens
            } else {
                schedule(now + wait, this::call); // answered "wait": the worker sleeps, then calls again
            }
            return;
        }
        grants++;
        int site = frontier.indexOf(permit.domain());
        SimSite.Answer answer = sites.get(site).answer(now);
        schedule(now + answer.latencyMillis() * MILLI, () -> {
            if (now >= 45e9) {
                counts[site][answer.status() == 429 ? 1 : 0]++;
            }
            governor.report(Feedback.of(permit.domain(), answer.status(), answer.latencyMillis()));
            schedule(clock.nanos() + random.nextLong(1, 5) * MILLI, this::call);
        });
    }

    private void schedule(long at, Runnable action) {
        events.add(new Event(at, seq++, action));
    }
}
