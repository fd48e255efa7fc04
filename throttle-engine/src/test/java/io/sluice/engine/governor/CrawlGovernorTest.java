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

    @Test
    void inflatedLatencyCutsTheRate() {
        governor.setRate(SITE, 10);
        for (int i = 0; i < 20; i++) {
            governor.report(Feedback.of(SITE, 200, 100));
            advanceMillis(100);
        }
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(10.0);
        for (int i = 0; i < 10; i++) {
            governor.report(Feedback.of(SITE, 200, 2_000));
            advanceMillis(100);
        }
        assertThat(governor.domain(SITE).orElseThrow().rate()).isLessThan(10.0);
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
        governor.onSettingsChanged(all -> saved.put("file", all));
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
        policy.set(new GovernorPolicy(1, 0.05, 5, 0.1, 0.8, 3, 1_000, 300_000, 5, 10, 20, 60, 3, 20, 30_000));
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
