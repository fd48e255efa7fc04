package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same rules on one node (the engine's domain states) and on the cluster's ledger ({@code governor.lua} on
 * a real redis-server): the permit for any of several domains, and the backoff that answers an incident, not
 * every 429 (issue #31). The cluster runs on Redis's clock, so time passes for real there; one node's clock
 * is moved by hand the same steps.
 */
class GovernorLedgerParityTest extends OneRedisPerClass {

    /** A governor, and how time passes for it. */
    private interface Setup {
        CrawlGovernor governor();

        void pass(Duration duration) throws InterruptedException;
    }

    private Setup setup(String mode) {
        if (mode.equals("local")) {
            AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
            InstantSource clock = now::get;
            CrawlGovernor governor = new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS, new SplittableRandom(1),
                    1_000, Map.of());
            return new Setup() {
                @Override
                public CrawlGovernor governor() {
                    return governor;
                }

                @Override
                public void pass(Duration duration) {
                    now.updateAndGet(t -> t.plus(duration));
                }
            };
        }
        ClusterNode node = cluster.node("a");
        awaitState(node, ClusterState.HEALTHY);
        CrawlGovernor governor = new CrawlGovernor(Clock.systemUTC(), () -> GovernorPolicy.DEFAULTS,
                new SplittableRandom(1), 1_000, Map.of());
        governor.shareWith(RedisDomainLedger.of(node, ClusterFixture.SETTINGS, Runnable::run));
        return new Setup() {
            @Override
            public CrawlGovernor governor() {
                return governor;
            }

            @Override
            public void pass(Duration duration) throws InterruptedException {
                Thread.sleep(duration.toMillis()); // Redis's TIME: the one clock a test cannot move
            }
        };
    }

    private static Permit any(CrawlGovernor governor, String... domains) throws Exception {
        return governor.acquireAnyAsync(List.of(domains)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static DomainView report(CrawlGovernor governor, Feedback feedback) throws Exception {
        governor.reportAsync(feedback).toCompletableFuture().get(5, TimeUnit.SECONDS);
        return governor.domain(feedback.domain()).orElseThrow();
    }

    /** An operator's rate, a healthy answer, then a 429: the cut. */
    private static DomainView cutAfterAHealthyAnswer(CrawlGovernor governor, String site, double rate)
            throws Exception {
        governor.setRate(site, rate);
        report(governor, Feedback.of(site, 200, 30));
        return report(governor, Feedback.of(site, 429, 30));
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "cluster"})
    void aPermitForAnyOfSeveralGoesToTheFirstReadyAndNamesIt(String mode) throws Exception {
        Setup setup = setup(mode);
        CrawlGovernor governor = setup.governor();
        assertThat(any(governor, "a.example", "b.example", "c.example").domain()).isEqualTo("a.example");
        setup.pass(Duration.ofMillis(20));
        assertThat(any(governor, "a.example", "b.example", "c.example").domain()).isEqualTo("b.example");
        setup.pass(Duration.ofMillis(20));
        assertThat(any(governor, "c.example", "b.example", "a.example").domain()).isEqualTo("c.example");

        Permit none = any(governor, "c.example", "b.example", "a.example");
        assertThat(none.granted()).isFalse();
        assertThat(none.domain()).as("the one whose slot opens first").isEqualTo("a.example");
        assertThat(none.reason()).isEqualTo(PermitReason.PACING);
        assertThat(none.waitMillis()).isBetween(1L, 1_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "cluster"})
    void aBlockedOrGivenUpDomainIsPassedOver(String mode) throws Exception {
        CrawlGovernor governor = setup(mode).governor();
        report(governor, Feedback.of("floor.example", 429, 30).withRetryAfter(60));
        for (int i = 0; i < GovernorPolicy.DEFAULTS.giveUpAfterErrors(); i++) {
            report(governor, Feedback.of("dead.example", 500, 30));
        }
        Permit granted = any(governor, "dead.example", "floor.example", "ok.example");
        assertThat(granted.granted()).isTrue();
        assertThat(granted.domain()).isEqualTo("ok.example");
        Permit floored = any(governor, "dead.example", "floor.example");
        assertThat(floored.domain()).isEqualTo("floor.example");
        assertThat(floored.reason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(any(governor, "dead.example").reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "cluster"})
    void theRateCutAnswersA429AndTheBackoffAnIncident(String mode) throws Exception {
        Setup setup = setup(mode);
        CrawlGovernor governor = setup.governor();
        String site = "small.example";
        DomainView cut = cutAfterAHealthyAnswer(governor, site, 10);
        DomainView inFlight = report(governor, Feedback.of(site, 429, 30));
        assertThat(cut.rate()).as("cut").isEqualTo(8.0);
        assertThat(cut.blockedUntil()).as("a 429 after a healthy answer: the cut answers it").isNull();
        assertThat(inFlight.blockedUntil()).as("one in flight at the cut").isNull();
        assertThat(inFlight.errors60s()).as("neither is an error for the breaker").isZero();

        // Nothing healthy since, past the cut's round trip (1 s): the cut did not help.
        long start = System.nanoTime();
        DomainView incident = inFlight;
        while (incident.blockReason() == null && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10)) {
            setup.pass(Duration.ofMillis(100));
            incident = report(governor, Feedback.of(site, 429, 30));
        }
        assertThat(incident.blockReason()).isEqualTo(PermitReason.BACKOFF);
        assertThat(incident.backoffLevel()).isZero();
        assertThat(incident.errors60s()).isEqualTo(1);
        if (mode.equals("cluster")) {
            assertThat(System.nanoTime() - start).as("not before the round trip")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(900));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "cluster"})
    void afterA429sCutTheRateClimbsBackFasterThanTheUsualAdditiveIncrease(String mode) throws Exception {
        Setup setup = setup(mode);
        CrawlGovernor governor = setup.governor();
        String site = "climb.example";
        DomainView cut = cutAfterAHealthyAnswer(governor, site, 2);
        long afterCut = System.nanoTime();
        setup.pass(Duration.ofMillis(100));
        assertThat(any(governor, site).granted()).as("a worker at the door: demand").isTrue();
        long beforeReport = System.nanoTime();
        DomainView climbed = report(governor, Feedback.of(site, 200, 30));

        assertThat(cut.rate()).isCloseTo(1.6, within(1e-9));
        // The healthy answer's climb covers the time since the cut: 100 ms here, at least the time between the
        // two calls on Redis's clock.
        double seconds = mode.equals("local") ? 0.1 : Math.min(1, (beforeReport - afterCut) / 1e9);
        double usual = Math.min(GovernorPolicy.DEFAULTS.increasePerSecond(), 0.005 * 1.6 * 1.6) * seconds;
        assertThat(climbed.rate() - cut.rate()).as("back towards 2 req/s, four times the usual climb")
                .isGreaterThan(2.5 * usual);
    }
}
