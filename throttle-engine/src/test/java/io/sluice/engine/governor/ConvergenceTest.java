package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
        ConvergenceCsv.write("capacity-5", "8 workers, a site that answers 429 above 5 req/s",
                Series.of(sim.fetches(), 5).windows(0, 300), t -> 5, 8);
        assertThat(series.rate(60, 300)).isBetween(4.0, 6.0);
        for (double[] window : series.windows(60, 300)) {
            assertThat(window[1]).as("requests per second in the 10 s from %.0f s", window[0]).isBetween(4.0, 6.0);
        }
        assertThat(series.refusedShare(60, 300)).isLessThan(0.05);
    }

    /** Every way a site says "slower", under every kind of latency a real site has. */
    static Stream<Arguments> honestSites() {
        Map<String, LatencyModel> latencies = new LinkedHashMap<>();
        latencies.put("100 ms", LatencyModel.fixed(100));
        latencies.put("20-200 ms", LatencyModel.uniform(20, 200));
        latencies.put("heavy-tailed, median 100 ms", LatencyModel.heavyTailed(100));
        latencies.put("1-3 ms with spikes", LatencyModel.local());
        List<Arguments> cases = new ArrayList<>();
        for (RateLimitedSite.Refusal refusal : RateLimitedSite.Refusal.values()) {
            latencies.forEach((name, model) -> cases.add(Arguments.of(refusal, name, model)));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, latency {1}")
    @MethodSource("honestSites")
    void eightPollingWorkersFindAFivePerSecondSiteWithinAMinuteAndStayThere(RateLimitedSite.Refusal refusal,
            String latencyName, LatencyModel latency) {
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 11)
                .site("example.com", new RateLimitedSite(() -> 5, latency, refusal, 12))
                .workers(8)
                .runFor(300);

        Series series = Series.of(sim.fetches(), 10);
        assertThat(series.served(30, 60)).as("served per second, second half of the first minute\n%s", series)
                .isBetween(3.5, 6.5);
        for (double[] window : series.windows(60, 300)) {
            assertThat(window[1]).as("requests per second in the 10 s from %.0f s%n%s", window[0], series)
                    .isBetween(3.5, 6.5);
        }
        assertThat(series.refusedShare(30, 300)).as("share of %s answers%n%s", refusal.status, series)
                .isLessThanOrEqualTo(0.10);
        assertThat(sim.governor.domain("example.com").orElseThrow().breaker()).isEqualTo(BreakerState.CLOSED);
    }

    @Test
    void heldAndPollingWorkersAreTheSameDemand() {
        double held = Series.of(CrawlSimulation.fleet(POLICY, 13).polling(0)
                .site("example.com", new RateLimitedSite(() -> 5, 100)).workers(8).runFor(120).fetches(), 10)
                .served(60, 120);
        double polling = Series.of(CrawlSimulation.fleet(POLICY, 13).polling(40)
                .site("example.com", new RateLimitedSite(() -> 5, 100)).workers(8).runFor(120).fetches(), 10)
                .served(60, 120);
        assertThat(polling).as("polling workers, against held ones at %.2f/s", held).isCloseTo(held, within(0.5));
        assertThat(polling).isBetween(4.0, 6.0);
    }

    @Test
    void aSiteThatServesTwentyPerSecondIsFoundWithinTwoMinutes() {
        GovernorPolicy roomy = POLICY.withRates(POLICY.initialRate(), POLICY.minRate(), 100);
        CrawlSimulation sim = CrawlSimulation.fleet(roomy, 14)
                .site("big.example", new RateLimitedSite(() -> 20, LatencyModel.heavyTailed(80),
                        RateLimitedSite.Refusal.TOO_MANY, 15))
                .workers(16)
                .runFor(300);

        Series series = Series.of(sim.fetches(), 10);
        assertThat(series.windows(0, 120)).as("10-s windows in the first two minutes%n%s", series)
                .anySatisfy(window -> assertThat(window[1]).isGreaterThanOrEqualTo(16.0));
        assertThat(series.served(120, 300)).as("%s", series).isBetween(15.0, 24.0);
        assertThat(series.refusedShare(0, 300)).isLessThanOrEqualTo(0.10);
    }

    @Test
    void aSiteWhoseOnlySignalIsItsQueueIsPacedByLatency() {
        // One server, 200 ms per request: above 5 req/s the queue, and the latency, grow.
        SimSite queueing = new SimSite() {
            private final SplittableRandom random = new SplittableRandom(16);
            private long busyUntil;

            @Override
            public Answer answer(long now) {
                long service = 200_000_000L;
                busyUntil = Math.max(busyUntil, now) + service;
                long noise = LatencyModel.uniform(20, 120).millis(random);
                return new Answer(200, null, (busyUntil - now) / 1_000_000 + noise);
            }
        };
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 17).site("queue.example", queueing).workers(8)
                .runFor(300);

        Series series = Series.of(sim.fetches(), 10);
        assertThat(series.served(60, 300)).as("%s", series).isBetween(3.5, 5.5);
        double[] late = sim.fetches().stream().filter(f -> f.seconds() >= 60)
                .mapToDouble(CrawlSimulation.Fetch::latencyMillis).sorted().toArray();
        assertThat(late[late.length / 2]).as("median latency after the first minute (alone: 220-320 ms)")
                .isLessThan(700.0);
        assertThat(sim.governor.domain("queue.example").orElseThrow().slowDowns()).isZero();
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
        SplittableRandom random = new SplittableRandom(3);
        SimSite site = now -> new SimSite.Answer(random.nextDouble() < errorShare ? 500 : 200, null, 100);
        List<Double> opened = new ArrayList<>();
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
        List<GovernorAlert> alerts = new ArrayList<>();
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
        GovernorPolicy fixed = GovernorPolicy.DEFAULTS.withRates(2, 2, 2).withIncrease(0, 0).withLatency(0, 50, 20, 10);
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
    void capacityRisingFrom5To20IsFoundWithinTwoMinutes() {
        double[] capacity = {5};
        CrawlSimulation sim = CrawlSimulation.fleet(POLICY, 7)
                .site("growing.example", new RateLimitedSite(() -> capacity[0], 100))
                .workers(8)
                .at(120, () -> capacity[0] = 20)
                .runFor(320);

        Series series = Series.of(sim.fetches(), 10);
        ConvergenceCsv.write("capacity-5-to-20", "8 workers, capacity rising from 5 to 20 req/s at 120 s",
                Series.of(sim.fetches(), 5).windows(0, 320), t -> t < 120 ? 5 : 20, 24);
        assertThat(series.rate(100, 120)).as("before the change").isBetween(4.0, 6.0);
        assertThat(series.windows(120, 240)).as("10-s windows within 2 minutes of the change%n%s", series)
                .anySatisfy(window -> assertThat(window[1]).isGreaterThanOrEqualTo(16.0));
    }

    /** Requests and refusals (429, 503, 403) per time window. */
    record Series(List<double[]> rows, double width) {
        static Series of(List<CrawlSimulation.Fetch> fetches, double width) {
            double end = fetches.stream().mapToDouble(CrawlSimulation.Fetch::seconds).max().orElse(0);
            int n = (int) Math.ceil(end / width);
            List<double[]> rows = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                rows.add(new double[] {i * width, 0, 0});
            }
            for (CrawlSimulation.Fetch f : fetches) {
                double[] row = rows.get(Math.min(n - 1, (int) (f.seconds() / width)));
                row[1]++;
                if (f.status() == 429 || f.status() == 503 || f.status() == 403) {
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

        /** Requests the site served (not refused) per second. */
        double served(double from, double to) {
            return rows.stream().filter(r -> r[0] >= from && r[0] + width <= to).mapToDouble(r -> r[1] - r[2]).sum()
                    / (to - from);
        }

        double refusedShare(double from, double to) {
            double all = rows.stream().filter(r -> r[0] >= from && r[0] + width <= to).mapToDouble(r -> r[1]).sum();
            double limited = rows.stream().filter(r -> r[0] >= from && r[0] + width <= to)
                    .mapToDouble(r -> r[2]).sum();
            return limited / all;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder();
            for (double[] r : rows) {
                text.append(String.format("%5.0f s  %5.2f req/s  %4.1f%% refused%n", r[0], r[1] / width,
                        100 * r[2] / Math.max(1, r[1])));
            }
            return text.toString();
        }
    }
}
