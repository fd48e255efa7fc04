package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The governor against simulated sites and a fleet of workers, on simulated time. */
class ConvergenceTest {
    private static final GovernorPolicy POLICY = GovernorPolicy.DEFAULTS;

    @Test
    void eightWorkersOnASiteThatAnswers429Above5PerSecondSettleBetween4And6() {
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 1)
                .site("example.com", new RateLimitedSite(() -> 5, 100))
                .workers(8)
                .runFor(300);

        Series series = Series.of(sim.fetches(), 10);
        ConvergencePlot.write("capacity-5", "8 workers, a site that answers 429 above 5 req/s",
                Series.of(sim.fetches(), 5).windows(0, 300), t -> 5, 8);
        assertThat(series.rate(60, 300)).isBetween(4.0, 6.0);
        for (double[] window : series.windows(60, 300)) {
            assertThat(window[1]).as("requests per second in the 10 s from %.0f s", window[0]).isBetween(4.0, 6.0);
        }
        assertThat(series.share429(60, 300)).isLessThan(0.05);
    }


    @Test
    void retryAfter120MeansNoGrantForTwoMinutesOnAnyWorker() {
        SimSite site = new SimSite() {
            private boolean told;

            @Override
            public Answer answer(long now) {
                if (!told && now >= 30_000_000_000L) {
                    told = true;
                    return new Answer(429, 120L, 100);
                }
                return new Answer(200, null, 100);
            }
        };
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 2).site("example.com", site).workers(8).runFor(200);

        CrawlSimulation.Fetch told = sim.fetches().stream().filter(f -> f.status() == 429).findFirst().orElseThrow();
        double answeredAt = told.seconds() + 0.1;
        assertThat(sim.fetches()).filteredOn(f -> f.seconds() > told.seconds() && f.seconds() < answeredAt + 120)
                .as("grants between the Retry-After answer and its end").isEmpty();
        assertThat(sim.fetches()).filteredOn(f -> f.seconds() >= answeredAt + 120 && f.seconds() < answeredAt + 125)
                .as("grants once it has passed").isNotEmpty();
    }

    @Test
    void fifteenPercentErrorsOpensTheBreakerAndEightPercentNeverDoes() {
        assertThat(breakerOpenedAt(0.15)).as("15% errors").isNotEmpty();
        assertThat(breakerOpenedAt(0.08)).as("8% errors").isEmpty();
    }

    private static List<Double> breakerOpenedAt(double errorShare) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        SimSite site = now -> new SimSite.Answer(random.nextDouble() < errorShare ? 500 : 200, null, 100);
        List<Double> opened = new java.util.ArrayList<>();
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 3).site("example.com", site).workers(8);
        sim.every(1, 600, t -> {
            if (sim.governor.domain("example.com").orElseThrow().breaker() != BreakerState.CLOSED) {
                opened.add(t);
            }
        });
        sim.runFor(600);
        return opened;
    }

    @Test
    void twentyServerErrorsInARowGiveTheDomainUpWithExactlyOneAlert() {
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 4);
        List<GovernorAlert> alerts = new java.util.ArrayList<>();
        sim.governor.onAlert(alerts::add);
        sim.site("down.example", now -> new SimSite.Answer(500, null, 100)).workers(8).runFor(600);

        assertThat(alerts).hasSize(1);
        assertThat(alerts.get(0).domain()).isEqualTo("down.example");
        assertThat(sim.governor.snapshot().alerts()).containsExactlyElementsOf(alerts);
        assertThat(sim.fetches()).hasSize(POLICY.giveUpAfterErrors());
        assertThat(sim.governor.acquire("down.example").reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    void oneSlowDomainDoesNotSlowNinetyNineFastOnes() {
        GovernorPolicy fixed = new GovernorPolicy(2, 2, 2, 0, 0.8, 0, 1_000, 300_000, 5, 10, 20, 60, 3, 20, 30_000);
        CrawlSimulation sim = new CrawlSimulation(() -> fixed, 5, false);
        for (int i = 0; i < 99; i++) {
            sim.site("fast" + i + ".example", now -> new SimSite.Answer(200, null, 50));
        }
        sim.site("slow.example", now -> new SimSite.Answer(200, null, 5_000)).workers(16).runFor(120);

        for (int i = 0; i < 99; i++) {
            String domain = "fast" + i + ".example";
            long fetched = sim.fetches().stream().filter(f -> f.domain().equals(domain) && f.seconds() >= 20).count();
            assertThat(fetched / 100.0).as("%s requests per second", domain).isGreaterThanOrEqualTo(0.95 * 2);
        }
        assertThat(sim.fetches()).filteredOn(f -> f.domain().equals("slow.example")).isNotEmpty();
    }

    @Test
    void crawlDelayTenKeepsEveryGapAtTenSeconds() {
        SimSite site = now -> new SimSite.Answer(200, null, 100, 10.0);
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 6).site("polite.example", site).workers(8).runFor(300);

        List<CrawlSimulation.Fetch> fetches = sim.fetches();
        assertThat(fetches).hasSizeGreaterThan(25);
        for (int i = 1; i < fetches.size(); i++) {
            assertThat(fetches.get(i).seconds() - fetches.get(i - 1).seconds()).as("gap before fetch %d", i)
                    .isGreaterThanOrEqualTo(10.0);
        }
    }

    @Test
    void capacityRisingFrom5To20IsFoundWithinThreeMinutes() {
        double[] capacity = {5};
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 7)
                .site("growing.example", new RateLimitedSite(() -> capacity[0], 100))
                .workers(8)
                .at(120, () -> capacity[0] = 20)
                .runFor(320);

        Series series = Series.of(sim.fetches(), 10);
        ConvergencePlot.write("capacity-5-to-20", "8 workers, capacity rising from 5 to 20 req/s at 120 s",
                Series.of(sim.fetches(), 5).windows(0, 320), t -> t < 120 ? 5 : 20, 24);
        assertThat(series.rate(100, 120)).as("before the change").isBetween(4.0, 6.0);
        assertThat(series.windows(120, 300)).as("10-s windows within 3 minutes of the change")
                .anySatisfy(window -> assertThat(window[1]).isGreaterThanOrEqualTo(16.0));
    }

    /** Requests and 429s per time window. */
    record Series(List<double[]> rows, double width) {
        static Series of(List<CrawlSimulation.Fetch> fetches, double width) {
            double end = fetches.stream().mapToDouble(CrawlSimulation.Fetch::seconds).max().orElse(0);
            int n = (int) Math.ceil(end / width);
            List<double[]> rows = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                rows.add(new double[] {i * width, 0, 0});
            }
            for (CrawlSimulation.Fetch f : fetches) {
                double[] row = rows.get(Math.min(n - 1, (int) (f.seconds() / width)));
                row[1]++;
                if (f.status() == 429) {
                    row[2]++;
                }
            }
            return new Series(rows, width);
        }

        List<double[]> windows(double from, double to) {
            return rows.stream().filter(r -> r[0] >= from && r[0] + width <= to)
                    .map(r -> new double[] {r[0], r[1] / width, r[2] / Math.max(1, r[1])}).toList();
        }

        double rate(double from, double to) {
            return rows.stream().filter(r -> r[0] >= from && r[0] + width <= to).mapToDouble(r -> r[1]).sum()
                    / (to - from);
        }

        double share429(double from, double to) {
            double all = rows.stream().filter(r -> r[0] >= from && r[0] + width <= to).mapToDouble(r -> r[1]).sum();
            double limited = rows.stream().filter(r -> r[0] >= from && r[0] + width <= to)
                    .mapToDouble(r -> r[2]).sum();
            return limited / all;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            for (double[] r : rows) {
                text.append(String.format("%5.0f s  %5.2f req/s  %4.1f%% 429%n", r[0], r[1] / width,
                        100 * r[2] / Math.max(1, r[1])));
            }
            return text.toString();
        }
    }
}
