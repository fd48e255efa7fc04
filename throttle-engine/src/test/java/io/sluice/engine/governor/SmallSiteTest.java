package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A small site is the one a polite crawler must keep crawling gently, not drop (issue #31): a site that
 * serves 1 request per second and answers 429 above it, crawled by polling workers on simulated time.
 * Its isolated 429s are answered by the rate cut; the backoff is for an incident (docs/manual/governor.md,
 * "AIMD, backoff, breaker and give-up").
 */
class SmallSiteTest {
    private static final GovernorPolicy POLICY = GovernorPolicy.DEFAULTS;

    @Test
    void aOnePerSecondSiteIsCrawledAtItsRateNotBackedOffForHalfAMinuteAtATime() {
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 31)
                .site("small.example", new RateLimitedSite(() -> 1, LatencyModel.uniform(20, 200),
                        RateLimitedSite.Refusal.TOO_MANY, 32))
                .workers(4);
        List<Integer> levels = new ArrayList<>();
        List<Double> blockedBackoff = new ArrayList<>();
        sim.every(1, 300, t -> {
            DomainView view = sim.governor.domain("small.example").orElseThrow();
            levels.add(view.backoffLevel());
            if (view.blockReason() == PermitReason.BACKOFF) {
                blockedBackoff.add(t);
            }
        });
        sim.runFor(300);

        ConvergenceTest.Series series = ConvergenceTest.Series.of(sim.fetches(), 10);
        ConvergenceCsv.write("small-site-1", "4 polling workers, a site that answers 429 above 1 req/s, "
                + "latency 20-200 ms", ConvergenceTest.Series.of(sim.fetches(), 5).windows(0, 300), t -> 1, 2);
        assertThat(series.served(150, 300)).as("served per second, second half%n%s", series)
                .isGreaterThanOrEqualTo(0.8);
        assertThat(series.refusedShare(60, 300)).as("share of 429s%n%s", series).isLessThanOrEqualTo(0.10);
        assertThat(levels.stream().mapToInt(Integer::intValue).max().orElse(0)).as("highest backoff level")
                .isLessThanOrEqualTo(1);
        assertThat(blockedBackoff.size()).as("seconds blocked by BACKOFF of 300: %s", blockedBackoff)
                .isLessThanOrEqualTo(15);
        assertThat(sim.governor.domain("small.example").orElseThrow().breaker()).isEqualTo(BreakerState.CLOSED);
    }
}
