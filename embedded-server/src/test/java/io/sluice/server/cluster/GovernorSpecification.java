package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.governor.GovernorAlert;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The crawl governor's rules (docs/manual/governor.md), written once and run against each place a domain's
 * pace can live: the engine's own domain states on a single node ({@link LocalGovernorSpecTest}) and the
 * cluster's ledger, {@code governor.lua} on a real redis-server ({@link RedisGovernorSpecTest}). The Lua
 * script restates {@code DomainState}, {@code Pacer} and {@code CircuitBreaker}; a rule that holds on one side
 * only is a bug in the other.
 *
 * <p>Both sides run on the test's clock: the governor's injected clock, which the Redis ledger passes to the
 * script as its "now" (in production the script reads Redis's {@code TIME}). Every call goes through the
 * governor's asynchronous methods, which are the local ones on a single node; a test fails if a cluster
 * governor paced alone (its ledger did not answer), since then the script was not what was judged.
 *
 * <p>To add a rule: write it here, against {@link #governor()}; it runs on both sides. A rule that holds
 * only on one node (the snapshot's order, saved settings, names) belongs in the engine's tests. A new place
 * for the state is a class that implements this interface: {@link #build}, {@link #judgedBy}, and a
 * {@link Subject} field.
 */
interface GovernorSpecification {
    String SITE = "example.com";
    GovernorPolicy P = GovernorPolicy.DEFAULTS;
    Instant START = Instant.parse("2026-11-22T08:00:00Z");
    /** A call that needs Redis answers within its deadline; this only guards against a hang. */
    long ANSWER_SECONDS = 5;

    /** A governor on {@code clock} and {@code policy}, pacing where this side keeps a domain's state. */
    CrawlGovernor build(InstantSource clock, Supplier<GovernorPolicy> policy);

    /** Where this side judges: {@code LOCAL} or {@code CLUSTER}. */
    Pacing.Mode judgedBy();

    /** This test's clock, policy and governor (a field of the test class: one per test). */
    Subject subject();

    /** What one test works on: its clock, moved only by {@link #pass}, its policy, and its governor. */
    final class Subject {
        private final AtomicReference<Instant> now = new AtomicReference<>(START);
        private final AtomicReference<GovernorPolicy> policy = new AtomicReference<>(P);
        private CrawlGovernor governor;
    }

    /** The governor under test, built on first use (after the test class's own set-up). */
    default CrawlGovernor governor() {
        Subject subject = subject();
        synchronized (subject) { // workers on several threads may be the first to ask
            if (subject.governor == null) {
                subject.governor = build(subject.now::get, subject.policy::get);
            }
            return subject.governor;
        }
    }

    /** The governor's policy, read on every call: a live edit is a {@code set}. */
    default AtomicReference<GovernorPolicy> policy() {
        return subject().policy;
    }

    // ---- the calls a worker and an operator make, answered wherever this side judges ----

    default Permit acquire(String domain) {
        return settle(governor().acquireAsync(domain));
    }

    default Permit any(String... domains) {
        return any(List.of(domains));
    }

    default Permit any(List<String> domains) {
        return settle(governor().acquireAnyAsync(domains));
    }

    default void report(Feedback feedback) {
        settle(governor().reportAsync(feedback));
    }

    /** A permit for a named worker (a token's name, as the permit API passes it). */
    default Permit acquire(String domain, String worker) {
        return settle(governor().acquireAsync(domain, worker));
    }

    default void report(Feedback feedback, String worker) {
        settle(governor().reportAsync(feedback, worker));
    }

    default DomainView view(String domain) {
        return governor().domain(domain).orElseThrow();
    }

    default void pass(long millis) {
        subject().now.updateAndGet(t -> t.plusMillis(millis));
    }

    default double seconds() {
        return Duration.between(START, subject().now.get()).toNanos() / 1e9;
    }

    private <T> T settle(CompletionStage<T> call) {
        T answer;
        try {
            answer = call.toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no answer within " + ANSWER_SECONDS + " s", e);
        }
        Pacing pacing = governor().pacing();
        assertThat(pacing.mode()).as("judged by %s, not alone (%s)", judgedBy(), pacing.reason())
                .isEqualTo(judgedBy());
        return answer;
    }

    /** One worker always at the door: asks, fetches, reports, and comes back when told. */
    default void crawlBusily(String domain, int answers, IntToLongFunction latency, IntUnaryOperator status) {
        for (int i = 0; i < answers; i++) {
            Permit permit = acquire(domain);
            if (!permit.granted()) {
                pass(permit.waitMillis());
                i--;
                continue;
            }
            report(Feedback.of(domain, status.applyAsInt(i), latency.applyAsLong(i)));
        }
    }

    // ---- pacing ----

    @Test
    default void aNewDomainIsGrantedAtTheInitialRateAndNotFaster() {
        assertThat(acquire(SITE).granted()).isTrue();
        pass(400);
        assertThat(acquire(SITE)).isEqualTo(new Permit(SITE, false, 600, PermitReason.PACING));
        pass(599);
        assertThat(acquire(SITE).granted()).as("1 ms before the slot").isFalse();
        pass(1);
        assertThat(acquire(SITE).granted()).as("at the slot").isTrue();
    }

    @Test
    default void manyWorkersAskingAtOnceGetExactlyOneGrantPerSlot() throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 100; round++) {
                AtomicInteger grants = new AtomicInteger();
                CountDownLatch start = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(threads);
                for (int t = 0; t < threads; t++) {
                    pool.execute(() -> {
                        try {
                            start.await();
                            if (acquire(SITE).granted()) {
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
                assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(grants.get()).as("grants in round %d", round).isEqualTo(1);
                pass(1_000);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    default void theSlowerOfRateAndMinimumDelayWins() {
        governor().setRate(SITE, 10);
        report(Feedback.of(SITE, 200, 80).withCrawlDelay(2.5));
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(acquire(SITE).waitMillis()).as("robots.txt's Crawl-delay").isEqualTo(2_500);
        assertThat(view(SITE).effectiveRate()).isEqualTo(0.4);

        governor().setMinDelay(SITE, 4_000);
        assertThat(acquire(SITE).waitMillis()).as("a longer delay applies to the next slot").isEqualTo(4_000);
        assertThatThrownBy(() -> governor().setMinDelay(SITE, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> governor().setRate(SITE, 500)).hasMessageContaining("governor.maxRate");
    }

    @Test
    default void aCrawlDelayLearnedAfterAGrantAppliesToTheNextSlot() {
        governor().setRate(SITE, 10);
        assertThat(acquire(SITE).granted()).isTrue();
        report(Feedback.of(SITE, 200, 80).withCrawlDelay(2.5));
        assertThat(acquire(SITE).waitMillis()).isEqualTo(2_500);
    }

    @Test
    default void aLiveEditBringsLearnedRatesInsideTheNewBounds() {
        governor().setRate(SITE, 15);
        assertThat(acquire(SITE).granted()).isTrue();
        policy().set(P.withRates(1, 0.05, 5));
        pass(100);
        assertThat(acquire(SITE).granted()).as("the next slot at the new bound, 200 ms after the last").isFalse();
        pass(100);
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(view(SITE).rate()).isEqualTo(5.0);
        assertThat(acquire(SITE).waitMillis()).isEqualTo(200);
    }

    // ---- AIMD and slow start ----

    @Test
    default void theRateRisesOnlyWhileWorkersAreWaitingForTheDomain() {
        // Nobody is waiting: healthy answers teach nothing about capacity.
        for (int i = 0; i < 30; i++) {
            report(Feedback.of(SITE, 200, 80));
            pass(1_000);
        }
        assertThat(view(SITE).rate()).isEqualTo(1.0);

        // Busy: a worker is at the door whenever the slot opens.
        for (int i = 0; i < 30; i++) {
            assertThat(acquire(SITE).granted()).isTrue();
            report(Feedback.of(SITE, 200, 80));
            pass(acquire(SITE).waitMillis());
        }
        assertThat(view(SITE).rate()).isGreaterThan(2.0);
    }

    @Test
    default void anIdleWorkerFleetIsNotDemandEvenWhenItAsksNowAndThen() {
        governor().setRate(SITE, 5);
        assertThat(acquire(SITE).granted()).isTrue();
        pass(3_000);
        for (int i = 0; i < 30; i++) {
            assertThat(acquire(SITE).granted()).isTrue();
            report(Feedback.of(SITE, 200, 80));
            pass(1_000); // the workers use one slot in five
        }
        assertThat(view(SITE).rate()).isEqualTo(5.0);
    }

    @Test
    default void aSlowDownCutsTheRateByTheDecreaseFactorOncePerRoundTrip() {
        governor().setRate(SITE, 10);
        report(Feedback.of(SITE, 503, 80));
        report(Feedback.of(SITE, 503, 80));
        assertThat(view(SITE).rate()).as("one cut for a burst").isEqualTo(8.0);
        pass(1_000);
        report(Feedback.of(SITE, 429, 80));
        assertThat(view(SITE).rate()).isCloseTo(6.4, within(1e-9));
    }

    @Test
    default void theDecreaseFactorIsThePolicys() {
        policy().set(P.withDecreaseFactor(0.5));
        governor().setRate(SITE, 10);
        report(Feedback.of(SITE, 429, 80));
        assertThat(view(SITE).rate()).isCloseTo(5.0, within(1e-9));
    }

    @Test
    default void aCutIsTakenFromWhatWentThroughWhenThatIsLessThanTheRate() {
        governor().setRate(SITE, 10);
        for (int i = 0; i < 20; i++) {
            assertThat(acquire(SITE).granted()).isTrue();
            pass(500); // the workers use one slot in five: 2 requests a second went through
        }
        report(Feedback.of(SITE, 429, 80));
        assertThat(view(SITE).rate()).as("0.8 of about 2, not of 10").isBetween(1.5, 1.7);
    }

    @Test
    default void aCutHoldsFromTheVeryNextGrant() {
        governor().setRate(SITE, 10);
        assertThat(acquire(SITE).granted()).isTrue();
        report(Feedback.of(SITE, 429, 80));
        assertThat(acquire(SITE).waitMillis()).as("the next slot at 8 req/s, not 10").isEqualTo(125);
    }

    @Test
    default void aSustainedLatencyRiseCutsTheRateAndOneSlowWindowDoesNot() {
        governor().setRate(SITE, 10);
        int window = P.latencyWindow();
        crawlBusily(SITE, 5 * window, i -> 100, i -> 200);
        double before = view(SITE).rate();
        crawlBusily(SITE, window, i -> 2_000, i -> 200);
        crawlBusily(SITE, window, i -> 100, i -> 200);
        assertThat(view(SITE).rate()).as("one slow window").isGreaterThan(before);

        crawlBusily(SITE, 2 * window, i -> 2_000, i -> 200);
        assertThat(view(SITE).rate()).as("two slow windows in a row").isLessThan(before);
        assertThat(view(SITE).blockedUntil()).as("a latency signal is no floor").isNull();
    }

    @Test
    default void slowStartDoublesTheRateUntilTheFirstSignalThenItClimbsAdditively() {
        crawlBusily(SITE, 40, i -> 80, i -> 200);
        DomainView early = view(SITE);
        double seconds = seconds();
        assertThat(early.slowStart()).isTrue();
        assertThat(early.rate()).as("after %.1f s", seconds)
                .isCloseTo(Math.pow(2, seconds / P.slowStartDoublingSeconds()), within(0.5));

        report(Feedback.of(SITE, 429, 80));
        DomainView cut = view(SITE);
        assertThat(cut.slowStart()).isFalse();
        assertThat(cut.rate()).isLessThan(early.rate());
        pass(acquire(SITE).waitMillis());
        double start = seconds();
        crawlBusily(SITE, 20, i -> 80, i -> 200);
        double plainAdditive = cut.rate() + usualClimb(cut.rate()) * (seconds() - start);
        assertThat(view(SITE).rate()).as("back fast towards the rate of the signal, not past it")
                .isGreaterThan(plainAdditive + 0.1).isLessThanOrEqualTo(early.rate());
    }

    @Test
    default void anOperatorsRateEndsSlowStartAndTheClimbGoesOnAdditively() {
        governor().setRate(SITE, 2);
        assertThat(acquire(SITE).granted()).isTrue();
        report(Feedback.of(SITE, 200, 30)); // the first healthy answer starts the climb's clock
        pass(500);
        assertThat(acquire(SITE).granted()).isTrue();
        report(Feedback.of(SITE, 200, 30));
        DomainView after = view(SITE);
        assertThat(after.slowStart()).isFalse();
        assertThat(after.rate()).as("+%s req/s per second, for 0.5 s", usualClimb(2))
                .isCloseTo(2 + usualClimb(2) * 0.5, within(1e-9));
    }

    @Test
    default void afterA429sCutTheRateClimbsBackFasterThanTheUsualAdditiveIncrease() {
        governor().setRate(SITE, 2);
        report(Feedback.of(SITE, 200, 30));
        report(Feedback.of(SITE, 429, 30));
        DomainView cut = view(SITE);
        pass(100);
        assertThat(any(SITE).granted()).as("a worker at the door: demand").isTrue();
        report(Feedback.of(SITE, 200, 30));

        assertThat(cut.rate()).isCloseTo(1.6, within(1e-9));
        assertThat(view(SITE).rate() - cut.rate()).as("back towards 2 req/s, four times the usual climb")
                .isCloseTo(4 * usualClimb(1.6) * 0.1, within(1e-9));
    }

    @Test
    default void climbingWellAboveTheRateOfTheLastSignalStartsSlowStartAgain() {
        governor().setRate(SITE, 10);
        double start = seconds();
        while (seconds() - start < 30) {
            crawlBusily(SITE, 10, i -> 80, i -> 200);
        }
        DomainView grown = view(SITE);
        assertThat(grown.rate()).as("above 1.25 times the operator's 10 req/s").isGreaterThan(12.5);
        assertThat(grown.slowStart()).as("the site has grown: probe geometrically again").isTrue();
    }

    @Test
    default void aWorkerPollingThroughABackoffIsDemand() {
        crawlBusily(SITE, 30, i -> 80, i -> 200);
        report(Feedback.of(SITE, 429, 80));
        double cut = view(SITE).rate();
        // The worker polls through the block, then fetches healthily: the rate climbs again.
        crawlBusily(SITE, 20, i -> 80, i -> 200);
        assertThat(view(SITE).rate()).isGreaterThan(cut);
    }

    private static double usualClimb(double rate) {
        return Math.min(P.increasePerSecond(), 0.005 * rate * rate);
    }

    // ---- Retry-After and backoff ----

    @Test
    default void retryAfterIsAFloorForEveryWorker() {
        acquire(SITE);
        report(Feedback.of(SITE, 429, 80).withRetryAfter(120));
        pass(119_999);
        Permit blocked = acquire(SITE);
        assertThat(blocked.reason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(blocked.waitMillis()).isEqualTo(1);
        pass(1);
        assertThat(acquire(SITE).granted()).isTrue();
    }

    @Test
    default void aLongerRetryAfterExtendsTheFloorAndAShorterOneDoesNotShortenIt() {
        report(Feedback.of(SITE, 429, 80).withRetryAfter(60));
        report(Feedback.of(SITE, 503, 80).withRetryAfter(10));
        assertThat(acquire(SITE).waitMillis()).isEqualTo(60_000);
        report(Feedback.of(SITE, 503, 80).withRetryAfter(90));
        assertThat(acquire(SITE).waitMillis()).isEqualTo(90_000);
    }

    @Test
    default void theRateCutAnswersAnIsolated429AndTheBackoffAnIncident() {
        governor().setRate(SITE, 10);
        report(Feedback.of(SITE, 200, 30));
        report(Feedback.of(SITE, 429, 30));
        DomainView cut = view(SITE);
        report(Feedback.of(SITE, 429, 30));
        DomainView inFlight = view(SITE);
        assertThat(cut.rate()).as("cut").isEqualTo(8.0);
        assertThat(cut.blockedUntil()).as("a 429 after a healthy answer: the cut answers it").isNull();
        assertThat(inFlight.blockedUntil()).as("one in flight at the cut").isNull();
        assertThat(inFlight.errors60s()).as("neither is an error for the breaker").isZero();

        pass(999);
        report(Feedback.of(SITE, 429, 30));
        assertThat(view(SITE).blockedUntil()).as("still within the cut's round trip (1 s)").isNull();
        pass(1);
        report(Feedback.of(SITE, 429, 30));
        DomainView incident = view(SITE);
        assertThat(incident.blockReason()).as("nothing healthy since, past the round trip: the cut did not help")
                .isEqualTo(PermitReason.BACKOFF);
        assertThat(incident.backoffLevel()).isZero();
        assertThat(incident.errors60s()).isEqualTo(1);
    }

    @Test
    default void a429WithoutRetryAfterBacksOffDoublingWithJitterUntilForgiven() {
        report(Feedback.of(SITE, 429, 80));
        assertThat(view(SITE).blockedUntil()).as("the first: the rate cut answers it").isNull();
        pass(3_000); // past the cut's round trip: the cut did not help
        List<Long> blocks = new ArrayList<>();
        for (int incident = 0; incident < 12; incident++) {
            report(Feedback.of(SITE, 429, 80));
            long block = acquire(SITE).waitMillis();
            blocks.add(block);
            long full = Math.min((long) P.backoffBaseMillis() << incident, P.backoffMaxMillis());
            assertThat(block).as("incident %d", incident).isBetween(full / 2, full);
            pass(block + 1);
        }
        assertThat(blocks.get(11)).as("capped").isLessThanOrEqualTo(P.backoffMaxMillis());

        pass(P.backoffForgiveSeconds() * 1_000L + 1);
        report(Feedback.of(SITE, 429, 80));
        assertThat(acquire(SITE).waitMillis()).as("after a quiet spell")
                .isBetween(P.backoffBaseMillis() / 2L, (long) P.backoffBaseMillis());
    }

    @Test
    default void answersToRequestsSentBeforeABlockAreTheSameIncident() {
        report(Feedback.of(SITE, 429, 80));
        pass(3_000);
        report(Feedback.of(SITE, 429, 80));
        long first = acquire(SITE).waitMillis();
        report(Feedback.of(SITE, 429, 80));
        report(Feedback.of(SITE, 429, 80));
        assertThat(view(SITE).backoffLevel()).isZero();
        assertThat(acquire(SITE).waitMillis()).isEqualTo(first);
    }

    @Test
    default void theBackoffLevelStepsDownWithEachHealthyAnswerAfterTheBlock() {
        report(Feedback.of(SITE, 429, 80));
        pass(3_000);
        for (int incident = 0; incident < 3; incident++) {
            report(Feedback.of(SITE, 429, 80));
            pass(acquire(SITE).waitMillis() + 1);
        }
        assertThat(view(SITE).backoffLevel()).isEqualTo(2);
        report(Feedback.of(SITE, 200, 80));
        assertThat(view(SITE).backoffLevel()).isEqualTo(1);
        report(Feedback.of(SITE, 200, 80));
        assertThat(view(SITE).backoffLevel()).isZero();
    }

    @Test
    default void a403IsASlowDownOnlyFromADomainThatServedThisCrawlerBefore() {
        report(Feedback.of("closed.example", 403, 30));
        DomainView neverServed = view("closed.example");
        assertThat(neverServed.slowDowns()).isZero();
        assertThat(neverServed.rate()).isEqualTo(P.initialRate());
        assertThat(neverServed.blockedUntil()).isNull();
        assertThat(neverServed.errors60s()).isZero();

        report(Feedback.of(SITE, 200, 30));
        report(Feedback.of(SITE, 403, 30));
        DomainView served = view(SITE);
        assertThat(served.slowDowns()).isEqualTo(1);
        assertThat(served.rate()).as("cut").isLessThan(P.initialRate());
        assertThat(served.slowStart()).isFalse();
        pass(3_000);
        report(Feedback.of(SITE, 403, 30));
        DomainView again = view(SITE);
        assertThat(again.blockReason()).as("a second, after the cut's round trip").isEqualTo(PermitReason.BACKOFF);
        assertThat(again.errors60s()).isEqualTo(1);
    }

    // ---- the circuit breaker ----

    @Test
    default void slowDownIncidentsCountInTheBreakersErrorShareAndNotFoundDoesNot() {
        governor().setRate(SITE, 20);
        report(Feedback.of(SITE, 200, 30));
        for (int i = 0; i < 40; i++) {
            report(Feedback.of(SITE, 404, 30));
        }
        assertThat(view(SITE).errors60s()).isZero();
        for (int i = 0; i < 5; i++) {
            report(Feedback.of(SITE, 200, 30));
            report(Feedback.of(SITE, i % 2 == 0 ? 429 : 403, 30));
        }
        assertThat(view(SITE).errors60s()).as("slow-downs the rate cut answers").isZero();
        for (int i = 0; i < 5; i++) {
            report(Feedback.of(SITE, 503, 30));
        }
        report(Feedback.of(SITE, 429, 30));
        assertThat(view(SITE).errors60s()).as("the 503s (server errors)").isEqualTo(5);
        pass(1_001); // past the cut's round trip: the cut did not help
        report(Feedback.of(SITE, 429, 30));
        DomainView view = view(SITE);
        assertThat(view.errors60s()).as("a slow-down incident").isEqualTo(6);
        assertThat(view.blockReason()).isEqualTo(PermitReason.BACKOFF);
        assertThat(view.consecutiveErrors())
                .as("the 503s: 429 and 403 neither add to the errors in a row nor forgive them").isEqualTo(5);
    }

    /** 15 server errors in 20 answers at 20 req/s: the breaker opens (and the domain is not given up). */
    default void openTheBreaker(String domain) {
        governor().setRate(domain, 20);
        for (int i = 0; i < 20; i++) {
            report(Feedback.of(domain, i < 5 ? 200 : 500, 80));
        }
    }

    /** Past the open spell, workers take every trial, 50 ms apart, and report none yet. */
    default void takeEveryTrial(String domain) {
        pass(P.breakerOpenSeconds() * 1_000L);
        for (int trial = 0; trial < P.breakerTrialRequests(); trial++) {
            assertThat(acquire(domain).granted()).as("trial %d", trial).isTrue();
            pass(50);
        }
    }

    @Test
    default void theBreakerOpensOnServerErrorsAndTimeoutsThenTrialsDecide() {
        governor().setRate(SITE, 20);
        for (int i = 0; i < 20; i++) {
            // a 500, or no answer at all (status 0: refused, timed out)
            report(Feedback.of(SITE, i < 5 ? 200 : i % 2 == 0 ? 500 : 0, 80));
        }
        Permit open = acquire(SITE);
        assertThat(open.reason()).isEqualTo(PermitReason.BREAKER_OPEN);
        assertThat(open.waitMillis()).isEqualTo(P.breakerOpenSeconds() * 1_000L);
        assertThat(view(SITE).breaker()).isEqualTo(BreakerState.OPEN);

        takeEveryTrial(SITE);
        assertThat(acquire(SITE).reason()).as("trials out").isEqualTo(PermitReason.BREAKER_OPEN);
        assertThat(view(SITE).breaker()).isEqualTo(BreakerState.HALF_OPEN);

        report(Feedback.of(SITE, 200, 80));
        report(Feedback.of(SITE, 500, 80));
        assertThat(view(SITE).breaker()).as("a failed trial reopens").isEqualTo(BreakerState.OPEN);

        pass(P.breakerOpenSeconds() * 1_000L);
        for (int trial = 0; trial < P.breakerTrialRequests(); trial++) {
            assertThat(acquire(SITE).granted()).isTrue();
            report(Feedback.of(SITE, 200, 80));
            pass(50);
        }
        assertThat(view(SITE).breaker()).as("enough good trials close it").isEqualTo(BreakerState.CLOSED);
        assertThat(acquire(SITE).granted()).isTrue();
    }

    @Test
    default void aTrialWhoseWorkerNeverReportsDoesNotWedgeTheBreakerHalfOpen() {
        openTheBreaker(SITE);
        takeEveryTrial(SITE);
        Permit held = acquire(SITE);
        assertThat(held.reason()).isEqualTo(PermitReason.BREAKER_OPEN);
        pass(held.waitMillis());
        assertThat(acquire(SITE).granted()).as("the trials' time is up: another trial").isTrue();
    }

    @Test
    default void aTrialRefusedByThePaceIsNotUsedUp() {
        openTheBreaker(SITE);
        pass(P.breakerOpenSeconds() * 1_000L);
        for (int trial = 0; trial < P.breakerTrialRequests(); trial++) {
            assertThat(acquire(SITE).granted()).as("trial %d", trial).isTrue();
            if (trial < P.breakerTrialRequests() - 1) {
                assertThat(acquire(SITE).reason()).as("the next slot is 50 ms away").isEqualTo(PermitReason.PACING);
            }
            pass(50);
        }
        assertThat(acquire(SITE).reason()).as("trials out").isEqualTo(PermitReason.BREAKER_OPEN);
    }

    @Test
    default void theBreakerNeedsEnoughCallsToJudge() {
        for (int i = 0; i < P.breakerMinCalls() - 1; i++) {
            report(Feedback.of(SITE, 500, 80));
        }
        assertThat(view(SITE).breaker()).isEqualTo(BreakerState.CLOSED);
        report(Feedback.of(SITE, 500, 80));
        assertThat(view(SITE).breaker()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    default void theBreakerForgetsErrorsOlderThanAMinute() {
        for (int i = 0; i < P.breakerMinCalls() - 1; i++) {
            report(Feedback.of(SITE, 500, 80));
        }
        pass(60_000);
        report(Feedback.of(SITE, 500, 80));
        assertThat(view(SITE).breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(view(SITE).errors60s()).isEqualTo(1);
    }

    // ---- give-up ----

    @Test
    default void givingUpRaisesOneAlertAndOnlyAnOperatorRevives() {
        List<GovernorAlert> alerts = new ArrayList<>();
        governor().onAlert(alerts::add);
        for (int i = 0; i < P.giveUpAfterErrors() + 5; i++) {
            report(Feedback.of(SITE, 0, -1));
        }
        assertThat(alerts).singleElement().satisfies(alert -> {
            assertThat(alert.domain()).isEqualTo(SITE);
            assertThat(alert.message()).contains(P.giveUpAfterErrors() + " errors in a row", "no response");
        });
        assertThat(acquire(SITE)).isEqualTo(new Permit(SITE, false, -1, PermitReason.GIVEN_UP));
        pass(Duration.ofDays(1).toMillis());
        assertThat(acquire(SITE).reason()).isEqualTo(PermitReason.GIVEN_UP);

        DomainView revived = governor().revive(SITE);
        assertThat(revived.givenUp()).isFalse();
        assertThat(revived.consecutiveErrors()).isZero();
        assertThat(revived.breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(governor().settings()).doesNotContainKey(SITE);
    }

    @Test
    default void aHealthyAnswerForgivesTheErrorsInARow() {
        for (int i = 0; i < P.giveUpAfterErrors() - 1; i++) {
            report(Feedback.of(SITE, 502, 10));
            pass(5_000); // spread out: the breaker does not open
        }
        report(Feedback.of(SITE, 200, 10));
        report(Feedback.of(SITE, 502, 10));
        assertThat(view(SITE).consecutiveErrors()).isEqualTo(1);
        assertThat(acquire(SITE).reason()).isNotEqualTo(PermitReason.GIVEN_UP);
    }

    // ---- several workers, one domain: turns and credible feedback ----

    /**
     * Two workers at the door of one 1 req/s domain for two minutes, one polling every 10 ms, the other every 100 ms
     * (first come, first served, the eager one took about 19 grants in 20). Each takes half the grants within 5%,
     * and together they get the domain's whole rate.
     */
    @Test
    default void twoWorkersOneTenTimesAsEagerShareADomainAndItsRateStaysWhole() {
        policy().set(P.withIncrease(0, 0));
        Map<String, Integer> grants = new HashMap<>();
        long seconds = 120;
        for (long t = 0; t < seconds * 1_000; t++) {
            if (t % 10 == 0 && acquire(SITE, "eager").granted()) {
                grants.merge("eager", 1, Integer::sum);
            }
            if (t % 100 == 3 && acquire(SITE, "patient").granted()) {
                grants.merge("patient", 1, Integer::sum);
            }
            pass(1);
        }
        int eager = grants.getOrDefault("eager", 0);
        int patient = grants.getOrDefault("patient", 0);
        assertThat(patient / (double) (eager + patient)).as("the patient worker's share of %d + %d", eager, patient)
                .isBetween(0.45, 0.55);
        assertThat(eager + patient).as("grants in %d s at 1 req/s", seconds).isBetween((int) seconds - 1,
                (int) seconds + 1);
    }

    /** Three workers polling every 10, 30 and 100 ms: round the turn list, a third each. */
    @Test
    default void threeWorkersTakeTurnsInTheOrderTheyWereRefused() {
        policy().set(P.withIncrease(0, 0));
        Map<String, Integer> grants = new HashMap<>();
        long seconds = 90;
        for (long t = 0; t < seconds * 1_000; t++) {
            for (Map.Entry<String, long[]> worker : Map.of("ten", new long[] {10, 0}, "thirty", new long[] {30, 7},
                    "hundred", new long[] {100, 3}).entrySet()) {
                if (t % worker.getValue()[0] == worker.getValue()[1] && acquire(SITE, worker.getKey()).granted()) {
                    grants.merge(worker.getKey(), 1, Integer::sum);
                }
            }
            pass(1);
        }
        int total = grants.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(total).as("grants in %d s at 1 req/s", seconds).isBetween((int) seconds - 1, (int) seconds + 1);
        grants.forEach((worker, count) -> assertThat(count / (double) total).as("%s's share of %s", worker, grants)
                .isBetween(0.30, 0.37));
        assertThat(grants).hasSize(3);
    }

    @Test
    default void aTurnTakenLateKeepsTheScheduleButNeverComesCloserThanTheMinimumDelay() {
        governor().setRate(SITE, 1);
        assertThat(acquire(SITE, "a").granted()).isTrue();
        pass(100);
        assertThat(acquire(SITE, "b").granted()).isFalse();
        pass(100);
        assertThat(acquire(SITE, "a").granted()).isFalse();
        pass(1_000);
        assertThat(acquire(SITE, "b").granted()).as("b's turn, 200 ms after its slot").isTrue();
        Permit next = acquire(SITE, "a");
        assertThat(next.waitMillis()).as("the next slot a second after b's, not after b took it").isEqualTo(800);

        governor().setMinDelay(SITE, 900);
        pass(800);
        assertThat(acquire(SITE, "a").waitMillis()).as("a delay set now holds from b's grant").isEqualTo(100);
        pass(100);
        assertThat(acquire(SITE, "a").granted()).isTrue();
        pass(100);
        assertThat(acquire(SITE, "b").granted()).isFalse();
        assertThat(acquire(SITE, "a").granted()).as("a waits behind b").isFalse();
        pass(1_100);
        assertThat(acquire(SITE, "b").granted()).as("b's turn, 200 ms after its slot").isTrue();
        assertThat(acquire(SITE, "a").waitMillis()).as("900 ms after b's grant, the minimum delay").isEqualTo(900);
    }

    @Test
    default void aSlotKeptForAWorkersTurnGoesToTheNextAskerWhenItDoesNotCome() {
        governor().setRate(SITE, 1);
        assertThat(acquire(SITE, "a").granted()).isTrue();
        pass(500);
        assertThat(acquire(SITE, "b").granted()).as("pacing: b waits its turn").isFalse();
        pass(500);
        Permit held = acquire(SITE, "a");
        assertThat(held.granted()).as("the slot is b's for a quarter interval").isFalse();
        assertThat(held.reason()).isEqualTo(PermitReason.PACING);
        assertThat(held.waitMillis()).isEqualTo(250);
        pass(250);
        assertThat(acquire(SITE, "a").granted()).as("b did not come: the next asker takes it").isTrue();
        pass(1_000);
        assertThat(acquire(SITE, "a").granted()).as("b lost its turn with it").isTrue();
    }

    @Test
    default void aReportWithoutAGrantToItsWorkerIsIgnoredAndCounted() {
        governor().setRate(SITE, 10);
        for (int i = 0; i < 2 * P.giveUpAfterErrors(); i++) {
            report(Feedback.of(SITE, 500, 30), "stranger");
        }
        report(Feedback.of(SITE, 429, 30).withRetryAfter(3_600), "stranger");
        report(Feedback.of(SITE, 200, 30).withCrawlDelay(3_600), "stranger");
        DomainView untouched = view(SITE);
        assertThat(untouched.breaker()).isEqualTo(BreakerState.CLOSED);
        assertThat(untouched.consecutiveErrors()).isZero();
        assertThat(untouched.errors60s()).isZero();
        assertThat(untouched.blockedUntil()).isNull();
        assertThat(untouched.crawlDelayMillis()).isZero();
        assertThat(untouched.rate()).isEqualTo(10.0);
        assertThat(untouched.recentStatuses()).isEmpty();
        assertThat(governor().ignoredReports()).isEqualTo(2L * P.giveUpAfterErrors() + 2);

        assertThat(acquire(SITE, "stranger").granted()).isTrue();
        report(Feedback.of(SITE, 500, 30), "stranger");
        report(Feedback.of(SITE, 500, 30), "stranger");
        assertThat(view(SITE).consecutiveErrors()).as("one grant, one report").isEqualTo(1);
        assertThat(governor().ignoredReports()).isEqualTo(2L * P.giveUpAfterErrors() + 3);
    }

    @Test
    default void aWorkerBanksAtMost64CreditsAndTheyExpireTenMinutesAfterItsLatestGrant() {
        governor().setRate(SITE, 20);
        for (int granted = 0; granted < 70;) {
            Permit permit = acquire(SITE, "w");
            if (permit.granted()) {
                granted++;
            } else {
                pass(permit.waitMillis());
            }
        }
        for (int i = 0; i < 70; i++) {
            report(Feedback.of(SITE, 404, 30), "w");
        }
        assertThat(governor().ignoredReports()).as("70 grants, 64 credits").isEqualTo(6);

        pass(1_000);
        assertThat(acquire(SITE, "w").granted()).isTrue();
        pass(Duration.ofMinutes(10).toMillis() + 1);
        report(Feedback.of(SITE, 500, 30), "w");
        assertThat(governor().ignoredReports()).as("a grant ten minutes old").isEqualTo(7);
        assertThat(view(SITE).consecutiveErrors()).isZero();
    }

    @Test
    default void oneWorkerCannotGiveUpADomainAnotherFindsHealthy() {
        policy().set(P.withIncrease(0, 0));
        int banked = 0;
        // Both at the door for 80 s: the honest worker fetches and reports; the other banks its grants.
        for (int step = 0; step < 1_600; step++) {
            if (acquire(SITE, "honest").granted()) {
                report(Feedback.of(SITE, 200, 30), "honest");
            }
            if (acquire(SITE, "rogue").granted()) {
                banked++;
            }
            pass(50);
        }
        assertThat(banked).as("its turns").isGreaterThan(P.giveUpAfterErrors() + 5);
        for (int i = 0; i < banked + 10; i++) {
            report(Feedback.of(SITE, 500, 30), "rogue");
        }
        DomainView after = view(SITE);
        assertThat(after.givenUp()).as("%d errors in a row, all from one worker", after.consecutiveErrors()).isFalse();
        assertThat(after.consecutiveErrors()).isEqualTo(banked);
        assertThat(governor().ignoredReports()).as("beyond its grants").isEqualTo(10);
        assertThat(acquire(SITE, "honest").reason()).isNotEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    default void aLoneWorkerOnADeadDomainStillGivesItUpPromptly() {
        List<GovernorAlert> alerts = new ArrayList<>();
        governor().onAlert(alerts::add);
        int errors = 0;
        while (alerts.isEmpty() && errors < 2 * P.giveUpAfterErrors()) {
            Permit permit = acquire(SITE, "w1");
            if (!permit.granted()) {
                pass(permit.waitMillis());
                continue;
            }
            report(Feedback.of(SITE, 0, -1), "w1");
            errors++;
        }
        assertThat(errors).isEqualTo(P.giveUpAfterErrors());
        assertThat(acquire(SITE, "w1").reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    default void workersThatAllSeeADomainFailGiveItUpTogether() {
        policy().set(P.withIncrease(0, 0));
        List<GovernorAlert> alerts = new ArrayList<>();
        governor().onAlert(alerts::add);
        int errors = 0;
        while (alerts.isEmpty() && errors < 2 * P.giveUpAfterErrors()) {
            for (String worker : List.of("w1", "w2")) {
                if (alerts.isEmpty() && acquire(SITE, worker).granted()) {
                    report(Feedback.of(SITE, 502, 30), worker);
                    errors++;
                }
            }
            pass(50);
        }
        assertThat(errors).as("errors in a row, taking turns").isEqualTo(P.giveUpAfterErrors());
        assertThat(view(SITE).givenUp()).isTrue();
    }

    // ---- an operator's overrides ----

    @Test
    default void anOperatorsRateIsThePaceFromTheNextSlot() {
        assertThat(acquire(SITE).granted()).isTrue();
        DomainView set = governor().setRate(SITE, 4);
        assertThat(set.rate()).isEqualTo(4.0);
        assertThat(acquire(SITE).waitMillis()).isEqualTo(250);
    }

    @Test
    default void anOperatorsMinimumDelayHoldsWhateverTheRateAndZeroRemovesIt() {
        governor().setRate(SITE, 10);
        governor().setMinDelay(SITE, 2_000);
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(acquire(SITE).waitMillis()).isEqualTo(2_000);
        governor().setMinDelay(SITE, 0);
        assertThat(acquire(SITE).waitMillis()).isEqualTo(100);
    }

    @Test
    default void resetForgetsTheCrawlDelayAndThatTheDomainServedThisCrawler() {
        report(Feedback.of(SITE, 200, 80).withCrawlDelay(2.5));
        governor().reset(SITE);
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(acquire(SITE).waitMillis()).as("the initial rate's interval").isEqualTo(1_000);
        report(Feedback.of(SITE, 403, 80));
        assertThat(view(SITE).rate()).as("a 403 from a domain not known to serve: no cut")
                .isEqualTo(P.initialRate());
    }

    @Test
    default void resetForgetsWhatWasLearnedButKeepsTheOperatorsDelay() {
        governor().setMinDelay(SITE, 3_000);
        report(Feedback.of(SITE, 429, 80).withRetryAfter(600));
        report(Feedback.of(SITE, 500, 80));
        DomainView reset = governor().reset(SITE);
        assertThat(reset.blockedUntil()).isNull();
        assertThat(reset.recentStatuses()).isEmpty();
        assertThat(reset.rate()).isEqualTo(P.initialRate());
        assertThat(reset.minDelayMillis()).isEqualTo(3_000);
        assertThat(acquire(SITE).granted()).isTrue();
        assertThat(acquire(SITE).waitMillis()).isEqualTo(3_000);
    }

    // ---- a permit for any of several domains ----

    @Test
    default void aPermitForAnyGrantsTheDomainWhoseSlotComesFirstAndNamesIt() {
        List<String> frontier = List.of("a.example", "b.example", "c.example");
        assertThat(any(frontier)).isEqualTo(new Permit("a.example", true, 0, null));
        pass(10);
        assertThat(any(frontier)).isEqualTo(new Permit("b.example", true, 0, null));
        pass(10);
        assertThat(any(frontier)).isEqualTo(new Permit("c.example", true, 0, null));

        pass(380);
        Permit none = any(frontier);
        assertThat(none.granted()).isFalse();
        assertThat(none.domain()).as("the one that opens first").isEqualTo("a.example");
        assertThat(none.reason()).isEqualTo(PermitReason.PACING);
        assertThat(none.waitMillis()).isEqualTo(600);
        pass(700);
        assertThat(any("c.example", "b.example", "a.example").domain())
                .as("the slot that opened first, whatever the order asked").isEqualTo("a.example");
    }

    @Test
    default void aPermitForAnyPassesOverABlockedOrGivenUpDomainAndAllGivenUpIsGivenUp() {
        report(Feedback.of("floor.example", 429, 30).withRetryAfter(60));
        for (int i = 0; i < P.giveUpAfterErrors(); i++) {
            report(Feedback.of("dead.example", 500, 30));
        }
        assertThat(any("dead.example", "floor.example", "ok.example"))
                .isEqualTo(new Permit("ok.example", true, 0, null));
        Permit floored = any("dead.example", "floor.example");
        assertThat(floored.domain()).isEqualTo("floor.example");
        assertThat(floored.reason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(any("dead.example").reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    default void withMoreWorkersThanSlotsGrantsGoRoundTheDomainsAndNoneWaitsLongerThanItsPace() {
        Map<String, Double> rates = Map.of("one.example", 1.0, "two.example", 2.0, "five.example", 5.0,
                "ten.example", 10.0);
        rates.forEach(governor()::setRate);
        List<String> frontier = List.of("ten.example", "five.example", "two.example", "one.example");
        Map<String, List<Double>> grants = new HashMap<>();
        double start = seconds();
        // One worker always at the door (as many polling workers are): asks, and comes back when told.
        while (seconds() - start < 60) {
            Permit permit = any(frontier);
            if (permit.granted()) {
                grants.computeIfAbsent(permit.domain(), d -> new ArrayList<>()).add(seconds());
            } else {
                pass(permit.waitMillis());
            }
        }
        rates.forEach((domain, rate) -> {
            List<Double> times = grants.get(domain);
            assertThat(times.size() / 60.0).as("%s grants per second", domain).isBetween(0.95 * rate, 1.05 * rate);
            double longest = IntStream.range(1, times.size()).mapToDouble(i -> times.get(i) - times.get(i - 1))
                    .max().orElseThrow();
            assertThat(longest).as("%s: longest gap between grants, s", domain).isLessThanOrEqualTo(1 / rate + 0.002);
        });
    }

    @Test
    default void aPermitForAnyPassesOverADomainWhoseBreakerHasNoTrialLeft() {
        openTheBreaker("broken.example");
        takeEveryTrial("broken.example");
        assertThat(acquire("ok.example").granted()).isTrue();
        pass(1_000); // both slots open; the broken domain's came first, but its trials are out
        assertThat(any("broken.example", "ok.example")).isEqualTo(new Permit("ok.example", true, 0, null));
        Permit none = any("broken.example", "ok.example");
        assertThat(none.domain()).as("refused, the one that came first").isEqualTo("broken.example");
        assertThat(none.reason()).isEqualTo(PermitReason.BREAKER_OPEN);
    }

    @Test
    default void theDomainsAPermitForAnyPassedOverAreStillWanted() {
        governor().setRate("a.example", 2);
        governor().setRate("b.example", 2);
        assertThat(acquire("b.example").granted()).isTrue();
        report(Feedback.of("b.example", 200, 30));
        pass(250);
        assertThat(any("a.example", "b.example").domain()).isEqualTo("a.example");
        pass(250);
        assertThat(any("b.example", "a.example").domain()).isEqualTo("b.example");
        report(Feedback.of("b.example", 200, 30));
        assertThat(view("b.example").rate()).as("a worker wanted it while another was granted: demand")
                .isGreaterThan(2.0);
    }
}
