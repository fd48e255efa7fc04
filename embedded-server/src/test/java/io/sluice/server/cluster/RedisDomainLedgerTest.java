package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.cluster.SlotHash;
import io.sluice.engine.governor.LedgerAnswer;
import io.sluice.engine.governor.LedgerChange;
import io.sluice.engine.governor.LedgerChoice;
import io.sluice.engine.governor.LedgerContext;
import io.sluice.engine.governor.Observation;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code governor.lua} through {@link RedisDomainLedger}, on a real redis-server and the test's clock: what the
 * ledger adds to the governor's rules (those are {@link GovernorSpecification}'s).
 */
class RedisDomainLedgerTest extends OneRedisPerClass {
    private static final String SITE = "shop.example";
    private static final Observation OK = new Observation(200, false, false, null, false, null);

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-22T08:00:00Z"));
    private RedisDomainLedger ledger;

    @BeforeEach
    void ledger() {
        ClusterNode node = cluster.node("a");
        awaitState(node, ClusterState.HEALTHY);
        ledger = RedisDomainLedger.of(node, ClusterFixture.PATIENT, Runnable::run, now::get);
    }

    private static LedgerContext context(long floorMicros, boolean givenUp) {
        return new LedgerContext(GovernorPolicy.DEFAULTS, floorMicros, givenUp, 0.5);
    }

    private static LedgerContext context() {
        return context(0, false);
    }

    private void pass(long millis) {
        now.updateAndGet(t -> t.plusMillis(millis));
    }

    private static LedgerAnswer join(CompletionStage<LedgerAnswer> call) throws Exception {
        return call.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private LedgerAnswer setRate(double rate) throws Exception {
        return join(ledger.change(SITE, new LedgerChange(LedgerChange.Kind.RATE, rate), context()));
    }

    @Test
    @DiffersOnACluster("several domains: several slots")
    void aPermitForAnyOfSeveralDomainsGoesToTheOneWhoseSlotComesFirst() throws Exception {
        // Hash slots 3465 and 8397: two masters of a 3-master Redis Cluster (slots 0-5460, 5461-10922...).
        String busy = "a.example";
        String idle = "b.example";
        assertThat(SlotHash.getSlot(ledger.key(busy)))
                .isNotEqualTo(SlotHash.getSlot(ledger.key(idle)));
        join(ledger.change(busy, new LedgerChange(LedgerChange.Kind.RATE, 1), context()));
        join(ledger.change(idle, new LedgerChange(LedgerChange.Kind.RATE, 1), context()));
        assertThat(join(ledger.acquire(busy, context())).granted()).isTrue();

        LedgerChoice first = ledger.acquireAny(List.of(busy, idle), List.of(context(), context()))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        LedgerChoice second = ledger.acquireAny(List.of(busy, idle), List.of(context(), context()))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(first.index()).as("the idle domain's slot is now").isEqualTo(1);
        assertThat(first.answer().granted()).isTrue();
        assertThat(second.index()).as("both taken: the one granted first comes first again").isZero();
        assertThat(second.answer().granted()).isFalse();
        assertThat(second.answer().reason()).isEqualTo(PermitReason.PACING);
        assertThat(second.answer().waitMicros()).isBetween(1L, 1_000_000L);
    }

    @Test
    void aLatencySignalCutsLikeASlowDownOncePerRoundTrip() throws Exception {
        setRate(10);
        Observation inflated = new Observation(200, false, false, null, true, null);

        LedgerAnswer first = join(ledger.report(SITE, inflated, context()));
        LedgerAnswer second = join(ledger.report(SITE, inflated, context()));

        assertThat(first.rate()).isCloseTo(8.0, within(1e-9));
        assertThat(second.rate()).as("within the same round trip").isCloseTo(8.0, within(1e-9));
        assertThat(first.blockedForMicros()).as("a latency signal is no floor").isZero();
    }

    @Test
    void healthyAnswersWhileWorkersWaitRaiseTheRate() throws Exception {
        setRate(2);
        assertThat(join(ledger.acquire(SITE, context())).granted()).isTrue();
        assertThat(join(ledger.acquire(SITE, context())).reason()).as("a worker waiting: demand")
                .isEqualTo(PermitReason.PACING);
        join(ledger.report(SITE, OK, context())); // the first healthy answer starts the clock
        pass(200);
        join(ledger.acquire(SITE, context()));

        LedgerAnswer after = join(ledger.report(SITE, OK, context()));

        assertThat(after.rate()).as("additive: 0.02 req/s per second of busy, healthy crawling, for 0.2 s")
                .isCloseTo(2.004, within(1e-9));
        assertThat(after.slowStart()).as("an operator's rate ends slow start").isFalse();
    }

    @Test
    void aRedisThatLostTheDomainTakesBackTheNodesGivenUpMarkAndDelays() throws Exception {
        LedgerAnswer givenUp = join(ledger.acquire("gone.example", context(0, true)));
        LedgerAnswer delayed = join(ledger.acquire(SITE, context(2_000_000, false)));

        assertThat(givenUp.givenUp()).isTrue();
        assertThat(givenUp.granted()).isFalse();
        assertThat(delayed.granted()).isTrue();
        assertThat(delayed.intervalMicros()).as("the node's 2 s minimum delay").isEqualTo(2_000_000);
    }

    @Test
    void aBackoffIsOneIncidentUntilItEndsAndTheRetryAfterFloorIsKeptWhole() throws Exception {
        Observation tooMany = new Observation(429, false, true, null, false, null);
        setRate(10);

        LedgerAnswer absorbed = join(ledger.report(SITE, tooMany, context()));
        assertThat(absorbed.blockedForMicros()).as("the first 429: the rate cut answers it").isZero();
        // Nothing healthy since: past the cut's round trip (1 s) the next one is an incident.
        pass(1_000);
        LedgerAnswer first = join(ledger.report(SITE, tooMany, context()));
        LedgerAnswer again = join(ledger.report(SITE, tooMany, context()));
        LedgerAnswer floor = join(ledger.report(SITE, new Observation(429, false, true, 90L, false, null),
                context()));

        assertThat(first.blockReason()).isEqualTo(PermitReason.BACKOFF);
        // base 1 s, equal jitter at 0.5: 500 ms + 250 ms
        assertThat(first.blockedForMicros()).isEqualTo(750_000L);
        assertThat(again.backoffLevel()).as("the same incident").isZero();
        assertThat(floor.blockReason()).isEqualTo(PermitReason.RETRY_AFTER);
        assertThat(floor.blockedForMicros()).isEqualTo(90_000_000L);
    }
}
