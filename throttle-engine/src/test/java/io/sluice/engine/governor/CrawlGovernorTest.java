package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CrawlGovernorTest {
    private static final String SITE = "example.com";

    private final SimClock clock = new SimClock();
    private final AtomicReference<GovernorPolicy> policy = new AtomicReference<>(GovernorPolicy.DEFAULTS);
    private final CrawlGovernor governor =
            new CrawlGovernor(clock, policy::get, new SplittableRandom(42), 1_000, Map.of());

    private void advanceMillis(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    @Test
    void aNewDomainIsPacedAtTheInitialRate() {
        assertThat(governor.acquire(SITE).granted()).isTrue();
        advanceMillis(400);
        Permit early = governor.acquire(SITE);
        assertThat(early).isEqualTo(new Permit(SITE, false, 600, PermitReason.PACING));
        advanceMillis(599);
        assertThat(governor.acquire(SITE).granted()).as("1 ms before the slot").isFalse();
        advanceMillis(1);
        assertThat(governor.acquire(SITE).granted()).as("at the slot").isTrue();
    }

    @Test
    void domainsAreSpeltOneWayAndNonsenseIsRefused() {
        assertThat(governor.acquire("Example.COM.").domain()).isEqualTo(SITE);
        assertThat(governor.acquire(SITE).granted()).as("the same domain, already granted").isFalse();
        assertThat(DomainNames.normalise("shop.example.com:8443")).isEqualTo("shop.example.com:8443");
        assertThatThrownBy(() -> governor.acquire("https://example.com/page"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a host name");
        assertThatThrownBy(() -> governor.acquire(" ")).hasMessage("domain is required");
        assertThatThrownBy(() -> governor.acquire("example.com:70000")).hasMessageContaining("port");
    }

    @Test
    void manyWorkersAskingAtOnceGetExactlyOneGrantPerSlot() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 200; round++) {
                AtomicInteger grants = new AtomicInteger();
                CountDownLatch start = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(threads);
                for (int t = 0; t < threads; t++) {
                    pool.execute(() -> {
                        try {
                            start.await();
                            if (governor.acquire(SITE).granted()) {
                                grants.incrementAndGet();
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            done.countDown();
                        }
                    });
                }
                start.countDown();
                assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(grants.get()).as("grants in round %d", round).isEqualTo(1);
                advanceMillis(1_000);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void retryAfterIsAFloorForEveryWorker() {
        governor.acquire(SITE);
        governor.report(Feedback.of(SITE, 429, 80).withRetryAfter(120));
        advanceMillis(119_999);
        Permit blocked = governor.acquire(SITE);
        assertThat(blocked.reason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(blocked.waitMillis()).isEqualTo(1);
        advanceMillis(1);
        assertThat(governor.acquire(SITE).granted()).isTrue();
    }

    @Test
    void a429WithoutRetryAfterBacksOffDoublingWithJitterUntilForgiven() {
        GovernorPolicy p = GovernorPolicy.DEFAULTS;
        governor.report(Feedback.of(SITE, 429, 80));
        assertThat(governor.domain(SITE).orElseThrow().blockedUntil()).as("the first: the rate cut answers it")
                .isNull();
        advanceMillis(3_000); // past the cut's round trip: the cut did not help
        List<Long> blocks = new ArrayList<>();
        for (int incident = 0; incident < 12; incident++) {
            governor.report(Feedback.of(SITE, 429, 80));
            long block = governor.acquire(SITE).waitMillis();
            blocks.add(block);
            long full = Math.min((long) p.backoffBaseMillis() << incident, p.backoffMaxMillis());
            assertThat(block).as("incident %d", incident).isBetween(full / 2, full);
            advanceMillis(block + 1);
        }
        assertThat(blocks.get(11)).as("capped").isLessThanOrEqualTo(p.backoffMaxMillis());

        advanceMillis(p.backoffForgiveSeconds() * 1_000L + 1);
        governor.report(Feedback.of(SITE, 429, 80));
        assertThat(governor.acquire(SITE).waitMillis()).as("after a quiet spell")
                .isBetween(p.backoffBaseMillis() / 2L, (long) p.backoffBaseMillis());
    }

    @Test
    void answersToRequestsSentBeforeABlockAreTheSameIncident() {
        governor.report(Feedback.of(SITE, 429, 80));
        advanceMillis(3_000);
        governor.report(Feedback.of(SITE, 429, 80));
        long first = governor.acquire(SITE).waitMillis();
        governor.report(Feedback.of(SITE, 429, 80));
        governor.report(Feedback.of(SITE, 429, 80));
        assertThat(governor.domain(SITE).orElseThrow().backoffLevel()).isZero();
        assertThat(governor.acquire(SITE).waitMillis()).isEqualTo(first);
    }

    @Test
    void theRateRisesOnlyWhileWorkersAreWaitingForTheDomain() {
        // Nobody is waiting: healthy answers teach nothing about capacity.
        for (int i = 0; i < 30; i++) {
            governor.report(Feedback.of(SITE, 200, 80));
            advanceMillis(1_000);
        }
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(1.0);

        // Busy: a worker is at the door whenever the slot opens.
        for (int i = 0; i < 30; i++) {
            assertThat(governor.acquire(SITE).granted()).isTrue();
            governor.report(Feedback.of(SITE, 200, 80));
            advanceMillis(governor.acquire(SITE).waitMillis());
        }
        assertThat(governor.domain(SITE).orElseThrow().rate()).isGreaterThan(2.0);
    }

    @Test
    void aSlowDownCutsTheRateOncePerRoundTrip() {
        governor.setRate(SITE, 10);
        governor.report(Feedback.of(SITE, 503, 80));
        governor.report(Feedback.of(SITE, 503, 80));
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(8.0);
        advanceMillis(1_000);
        governor.report(Feedback.of(SITE, 503, 80));
        assertThat(governor.domain(SITE).orElseThrow().rate()).isCloseTo(6.4, within(1e-9));
    }

    /** One worker always at the door: asks, fetches, reports, and comes back when told. */
    private void crawlBusily(String domain, int answers, java.util.function.IntToLongFunction latency,
            java.util.function.IntUnaryOperator status) {
        for (int i = 0; i < answers; i++) {
            Permit permit = governor.acquire(domain);
            if (!permit.granted()) {
                advanceMillis(permit.waitMillis());
                i--;
                continue;
            }
            governor.report(Feedback.of(domain, status.applyAsInt(i), latency.applyAsLong(i)));
        }
    }

    @Test
    void aSustainedLatencyRiseCutsTheRateAndOneSlowWindowDoesNot() {
        governor.setRate(SITE, 10);
        int window = GovernorPolicy.DEFAULTS.latencyWindow();
        crawlBusily(SITE, 5 * window, i -> 100, i -> 200);
        double before = governor.domain(SITE).orElseThrow().rate();
        crawlBusily(SITE, window, i -> 2_000, i -> 200);
        crawlBusily(SITE, window, i -> 100, i -> 200);
        assertThat(governor.domain(SITE).orElseThrow().rate()).as("one slow window").isGreaterThan(before);

        crawlBusily(SITE, 2 * window, i -> 2_000, i -> 200);
        assertThat(governor.domain(SITE).orElseThrow().rate()).as("two slow windows in a row").isLessThan(before);
    }

    @Test
    void slowStartDoublesTheRateUntilTheFirstSignalThenItClimbsAdditively() {
        GovernorPolicy p = GovernorPolicy.DEFAULTS;
        crawlBusily(SITE, 40, i -> 80, i -> 200);
        DomainView early = governor.domain(SITE).orElseThrow();
        double seconds = clock.seconds();
        assertThat(early.slowStart()).isTrue();
        assertThat(early.rate()).as("after %.1f s", seconds)
                .isCloseTo(Math.pow(2, seconds / p.slowStartDoublingSeconds()), within(0.5));

        governor.report(Feedback.of(SITE, 429, 80));
        DomainView cut = governor.domain(SITE).orElseThrow();
        assertThat(cut.slowStart()).isFalse();
        assertThat(cut.rate()).isLessThan(early.rate());
        advanceMillis(governor.acquire(SITE).waitMillis());
        double start = clock.seconds();
        crawlBusily(SITE, 20, i -> 80, i -> 200);
        double plainAdditive = cut.rate() + Math.min(p.increasePerSecond(),
                DomainState.MAX_RISE_PER_REQUEST * cut.rate() * cut.rate()) * (clock.seconds() - start);
        assertThat(governor.domain(SITE).orElseThrow().rate())
                .as("back fast towards the rate of the signal, not past it").isGreaterThan(plainAdditive + 0.1)
                .isLessThanOrEqualTo(early.rate());
    }

    @Test
    void a403IsASlowDownOnlyFromADomainThatServedThisCrawlerBefore() {
        governor.report(Feedback.of("closed.example", 403, 30));
        DomainView neverServed = governor.domain("closed.example").orElseThrow();
        assertThat(neverServed.slowDowns()).isZero();
        assertThat(neverServed.blockedUntil()).isNull();
        assertThat(neverServed.errors60s()).isZero();

        governor.report(Feedback.of(SITE, 200, 30));
        governor.report(Feedback.of(SITE, 403, 30));
        DomainView served = governor.domain(SITE).orElseThrow();
        assertThat(served.slowDowns()).isEqualTo(1);
        assertThat(served.rate()).as("cut").isLessThan(GovernorPolicy.DEFAULTS.initialRate());
        assertThat(served.slowStart()).isFalse();
        advanceMillis(3_000);
        governor.report(Feedback.of(SITE, 403, 30));
        DomainView again = governor.domain(SITE).orElseThrow();
        assertThat(again.blockReason()).as("a second, after the cut's round trip").isEqualTo(PermitReason.BACKOFF);
        assertThat(again.errors60s()).isEqualTo(1);
    }

    @Test
    void slowDownIncidentsCountInTheBreakersErrorShareAndNotFoundDoesNot() {
        governor.setRate(SITE, 20);
        governor.report(Feedback.of(SITE, 200, 30));
        for (int i = 0; i < 40; i++) {
            governor.report(Feedback.of(SITE, 404, 30));
        }
        assertThat(governor.domain(SITE).orElseThrow().errors60s()).isZero();
        for (int i = 0; i < 5; i++) {
            governor.report(Feedback.of(SITE, 200, 30));
            governor.report(Feedback.of(SITE, i % 2 == 0 ? 429 : 403, 30));
        }
        assertThat(governor.domain(SITE).orElseThrow().errors60s()).as("slow-downs the rate cut answers").isZero();
        for (int i = 0; i < 5; i++) {
            governor.report(Feedback.of(SITE, 503, 30));
        }
        governor.report(Feedback.of(SITE, 429, 30));
        assertThat(governor.domain(SITE).orElseThrow().errors60s()).as("the 503s (server errors)").isEqualTo(5);
        advanceMillis(1_001); // past the cut's round trip: the cut did not help
        governor.report(Feedback.of(SITE, 429, 30));
        DomainView view = governor.domain(SITE).orElseThrow();
        assertThat(view.errors60s()).as("a slow-down incident").isEqualTo(6);
        assertThat(view.blockReason()).isEqualTo(PermitReason.BACKOFF);
        assertThat(view.consecutiveErrors())
                .as("the 503s: 429 and 403 neither add to the errors in a row nor forgive them").isEqualTo(5);
    }

    @Test
    void aWorkerPollingThroughABackoffIsDemand() {
        crawlBusily(SITE, 30, i -> 80, i -> 200);
        governor.report(Feedback.of(SITE, 429, 80));
        double cut = governor.domain(SITE).orElseThrow().rate();
        // The worker polls through the block, then fetches healthily: the rate climbs again.
        crawlBusily(SITE, 20, i -> 80, i -> 200);
        assertThat(governor.domain(SITE).orElseThrow().rate()).isGreaterThan(cut);
    }

    @Test
    void anIdleWorkerFleetIsNotDemandEvenWhenItAsksNowAndThen() {
        governor.setRate(SITE, 5);
        assertThat(governor.acquire(SITE).granted()).isTrue();
        advanceMillis(3_000);
        for (int i = 0; i < 30; i++) {
            assertThat(governor.acquire(SITE).granted()).isTrue();
            governor.report(Feedback.of(SITE, 200, 80));
            advanceMillis(1_000); // the workers use one slot in five
        }
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(5.0);
    }

    @Test
    void theBreakerOpensForAMinuteThenTrialsDecide() {
        governor.setRate(SITE, 20);
        for (int i = 0; i < 20; i++) {
            governor.report(Feedback.of(SITE, i < 5 ? 200 : 500, 80));
        }
        Permit open = governor.acquire(SITE);
        assertThat(open.reason()).isEqualTo(PermitReason.BREAKER_OPEN);
        assertThat(open.waitMillis()).isEqualTo(60_000);

        advanceMillis(60_000);
        for (int trial = 0; trial < 3; trial++) {
            assertThat(governor.acquire(SITE).granted()).as("trial %d", trial).isTrue();
            advanceMillis(50);
        }
        assertThat(governor.acquire(SITE).reason()).as("trials out").isEqualTo(PermitReason.BREAKER_OPEN);
        assertThat(governor.domain(SITE).orElseThrow().breaker()).isEqualTo(BreakerState.HALF_OPEN);

        governor.report(Feedback.of(SITE, 200, 80));
        governor.report(Feedback.of(SITE, 500, 80));
        assertThat(governor.domain(SITE).orElseThrow().breaker()).as("a failed trial reopens")
                .isEqualTo(BreakerState.OPEN);

        advanceMillis(60_000);
        for (int trial = 0; trial < 3; trial++) {
            assertThat(governor.acquire(SITE).granted()).isTrue();
            governor.report(Feedback.of(SITE, 200, 80));
            advanceMillis(50);
        }
        assertThat(governor.domain(SITE).orElseThrow().breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(governor.acquire(SITE).granted()).isTrue();
    }

    @Test
    void theBreakerNeedsEnoughCallsToJudge() {
        for (int i = 0; i < 19; i++) {
            governor.report(Feedback.of(SITE, 500, 80));
        }
        assertThat(governor.domain(SITE).orElseThrow().breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(CircuitBreaker.wilsonLowerBound(15, 100)).as("15 of 100 is not yet proof of > 10%")
                .isLessThan(0.10);
        assertThat(CircuitBreaker.wilsonLowerBound(90, 600)).as("90 of 600 is").isGreaterThan(0.10);
    }

    @Test
    void givingUpRaisesOneAlertAndOnlyAnOperatorRevives() {
        List<GovernorAlert> alerts = new ArrayList<>();
        governor.onAlert(alerts::add);
        for (int i = 0; i < 25; i++) {
            governor.report(Feedback.of(SITE, 0, -1));
        }
        assertThat(alerts).singleElement().satisfies(alert -> {
            assertThat(alert.domain()).isEqualTo(SITE);
            assertThat(alert.message()).contains("20 errors in a row", "no response");
        });
        assertThat(governor.acquire(SITE)).isEqualTo(new Permit(SITE, false, -1, PermitReason.GIVEN_UP));
        advanceMillis(Duration.ofDays(1).toMillis());
        assertThat(governor.acquire(SITE).reason()).isEqualTo(PermitReason.GIVEN_UP);

        DomainView revived = governor.revive(SITE);
        assertThat(revived.givenUp()).isFalse();
        assertThat(revived.breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(governor.acquire(SITE).granted()).isTrue();
        assertThat(governor.settings()).doesNotContainKey(SITE);
    }

    @Test
    void operatorSettingsAndGiveUpsSurviveARestart() {
        Map<String, Map<String, DomainSettings>> saved = new HashMap<>();
        governor.onSettingsChanged(() -> saved.put("file", governor.settings()));
        governor.setMinDelay("slow.example", 5_000);
        for (int i = 0; i < 20; i++) {
            governor.report(Feedback.of("dead.example", 502, 10));
        }

        CrawlGovernor restarted = new CrawlGovernor(clock, policy::get, new SplittableRandom(1), 1_000,
                saved.get("file"));
        assertThat(restarted.acquire("dead.example").reason()).isEqualTo(PermitReason.GIVEN_UP);
        assertThat(restarted.acquire("slow.example").granted()).isTrue();
        advanceMillis(4_999);
        assertThat(restarted.acquire("slow.example").reason()).isEqualTo(PermitReason.PACING);
        advanceMillis(1);
        assertThat(restarted.acquire("slow.example").granted()).isTrue();
    }

    @Test
    void theSlowerOfRateAndMinimumDelayWins() {
        governor.setRate(SITE, 10);
        governor.report(Feedback.of(SITE, 200, 80).withCrawlDelay(2.5));
        assertThat(governor.acquire(SITE).granted()).isTrue();
        assertThat(governor.acquire(SITE).waitMillis()).isEqualTo(2_500);
        assertThat(governor.domain(SITE).orElseThrow().effectiveRate()).isEqualTo(0.4);

        governor.setMinDelay(SITE, 4_000);
        assertThat(governor.acquire(SITE).waitMillis()).as("a longer delay applies to the next slot")
                .isEqualTo(4_000);
        assertThatThrownBy(() -> governor.setMinDelay(SITE, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> governor.setRate(SITE, 500)).hasMessageContaining("governor.maxRate");
    }

    @Test
    void aLiveEditBringsLearnedRatesInsideTheNewBounds() {
        governor.setRate(SITE, 15);
        policy.set(GovernorPolicy.DEFAULTS.withRates(1, 0.05, 5));
        assertThat(governor.acquire(SITE).granted()).isTrue();
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(5.0);
        assertThat(governor.acquire(SITE).waitMillis()).isEqualTo(200);
    }

    @Test
    void resetForgetsWhatWasLearnedButKeepsTheOperatorsDelay() {
        governor.setMinDelay(SITE, 3_000);
        governor.report(Feedback.of(SITE, 429, 80).withRetryAfter(600));
        governor.report(Feedback.of(SITE, 500, 80));
        DomainView reset = governor.reset(SITE);
        assertThat(reset.blockedUntil()).isNull();
        assertThat(reset.recentStatuses()).isEmpty();
        assertThat(reset.rate()).isEqualTo(GovernorPolicy.DEFAULTS.initialRate());
        assertThat(reset.minDelayMillis()).isEqualTo(3_000);
        assertThat(governor.acquire(SITE).granted()).isTrue();
    }

    @Test
    void theSnapshotPutsDomainsThatNeedAttentionFirstAndKeepsTheLastFiftyStatuses() {
        for (int i = 0; i < 60; i++) {
            governor.report(Feedback.of("busy.example", i < 10 ? 404 : 200, 50));
            governor.acquire("busy.example");
            advanceMillis(1_000);
        }
        governor.report(Feedback.of("limited.example", 429, 50).withRetryAfter(30));
        GovernorSnapshot snapshot = governor.snapshot();
        assertThat(snapshot.domains()).extracting(DomainView::domain)
                .containsExactly("limited.example", "busy.example");
        DomainView busy = snapshot.domains().get(1);
        assertThat(busy.recentStatuses()).hasSize(50).allMatch(status -> status == 200);
        assertThat(snapshot.domains().get(0).blockReason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(snapshot.tracked()).isEqualTo(2);
    }
}
