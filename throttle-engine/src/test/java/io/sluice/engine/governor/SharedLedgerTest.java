package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.PolicyJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The governor's seam for a shared ledger: answers mirrored, one alert per give-up, local pace at 1/N without it. */
class SharedLedgerTest {
    private static final String SITE = "example.com";

    private final SimClock clock = new SimClock();
    private final CrawlGovernor governor =
            new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS, new SplittableRandom(7), 1_000, Map.of());
    private final ScriptedLedger ledger = new ScriptedLedger();

    /** Answers what the test says, or fails as a ledger past its deadline does. */
    private static final class ScriptedLedger implements DomainLedger {
        LedgerAnswer next;
        boolean down;
        boolean up = true;
        int nodes = 2;
        final List<Observation> reports = new ArrayList<>();
        final List<LedgerChange> changes = new ArrayList<>();

        private CompletionStage<LedgerAnswer> answer() {
            return down ? CompletableFuture.failedFuture(new TimeoutException("no answer within 50 ms"))
                    : CompletableFuture.completedFuture(next);
        }

        @Override
        public boolean available() {
            return up;
        }

        @Override
        public String unavailableReason() {
            return "Redis is gone";
        }

        @Override
        public int nodes() {
            return nodes;
        }

        @Override
        public CompletionStage<LedgerAnswer> acquire(String domain, LedgerContext context) {
            return answer();
        }

        @Override
        public CompletionStage<LedgerChoice> acquireAny(List<String> domains, List<LedgerContext> contexts) {
            return answer().thenApply(answer -> new LedgerChoice(domains.size() - 1, answer));
        }

        @Override
        public CompletionStage<LedgerAnswer> report(String domain, Observation observation, LedgerContext context) {
            reports.add(observation);
            return answer();
        }

        @Override
        public CompletionStage<LedgerAnswer> change(String domain, LedgerChange change, LedgerContext context) {
            changes.add(change);
            return answer();
        }
    }

    private static LedgerAnswer state(boolean granted, long waitMicros, PermitReason reason, double rate,
            boolean givenUp, boolean gaveUpNow) {
        return new LedgerAnswer(granted, waitMicros, reason, rate, (long) (1_000_000 / rate), 0, null,
                BreakerState.CLOSED, 0, 0, givenUp ? 20 : 0, givenUp, gaveUpNow, false, -1, -1, true);
    }

    private Permit acquire() {
        return governor.acquireAsync(SITE).toCompletableFuture().join();
    }

    @Test
    void withoutALedgerTheAsyncCallsAreTheLocalOnes() {
        assertThat(acquire().granted()).isTrue();
        assertThat(acquire()).isEqualTo(new Permit(SITE, false, 1_000, PermitReason.PACING));
        assertThat(governor.pacing().mode()).isEqualTo(Pacing.Mode.LOCAL);
    }

    @Test
    void theClustersAnswerIsTheNodesAndItsRateItsCopy() {
        governor.shareWith(ledger);
        ledger.next = state(false, 250_000, PermitReason.PACING, 4, false, false);

        assertThat(acquire()).isEqualTo(new Permit(SITE, false, 250, PermitReason.PACING));
        assertThat(governor.domain(SITE).orElseThrow().rate()).isEqualTo(4);
        assertThat(governor.pacing().mode()).isEqualTo(Pacing.Mode.CLUSTER);
    }

    @Test
    void withoutAnAnswerTheNodePacesAloneAtItsShareOfTheRateAndSaysSo() throws Exception {
        governor.shareWith(ledger);
        ledger.next = state(true, 0, null, 4, false, false);
        acquire(); // the cluster's rate, 4 per second, is now this node's copy
        ledger.down = true;
        clock.advance(Duration.ofSeconds(1));

        assertThat(acquire().granted()).as("a grant on the local pace").isTrue();
        clock.advance(Duration.ofMillis(400));
        Permit next = acquire();

        assertThat(next.granted()).as("2 nodes: each at 2 per second, not 4").isFalse();
        assertThat(next.waitMillis()).isEqualTo(100);
        assertThat(governor.pacing().mode()).isEqualTo(Pacing.Mode.DEGRADED);
        assertThat(governor.pacing().reason()).contains("did not answer in time", "1/2");
        assertThat(governor.snapshot().pacing()).isEqualTo(governor.pacing());
        assertThat(PolicyJson.mapper().readValue(PolicyJson.mapper().writeValueAsString(governor.snapshot()),
                GovernorSnapshot.class).pacing()).as("what the console reads").isEqualTo(governor.pacing());

        ledger.down = false;
        ledger.next = state(true, 0, null, 4, false, false);
        assertThat(acquire().granted()).isTrue();
        assertThat(governor.pacing().mode()).as("back with the cluster").isEqualTo(Pacing.Mode.CLUSTER);
    }

    @Test
    void aLedgerKnownDownIsNotAskedAtAll() {
        governor.shareWith(ledger);
        ledger.up = false;
        ledger.next = null; // would fail the call if asked

        assertThat(acquire().granted()).isTrue();
        assertThat(governor.pacing().reason()).startsWith("Redis is gone");
    }

    @Test
    void theNodeWhoseReportGaveTheDomainUpRaisesTheOneAlertTheOthersOnlyFollow() {
        CrawlGovernor other = new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS, new SplittableRandom(8), 1_000,
                Map.of());
        governor.shareWith(ledger);
        other.shareWith(ledger);

        ledger.next = state(false, 0, null, 1, true, true);
        governor.reportAsync(Feedback.of(SITE, 500, 10)).toCompletableFuture().join();
        ledger.next = state(false, 0, null, 1, true, false);
        Permit onOther = other.acquireAsync(SITE).toCompletableFuture().join();

        assertThat(governor.snapshot().alerts()).hasSize(1);
        assertThat(other.snapshot().alerts()).isEmpty();
        assertThat(onOther.reason()).isEqualTo(PermitReason.GIVEN_UP);
        assertThat(other.settings().get(SITE).givenUp()).as("saved, to start with it while Redis is down").isTrue();
        assertThat(ledger.reports).singleElement().extracting(Observation::error).isEqualTo(true);
    }

    @Test
    void aReportIsObservedHereAndJudgedByTheLedger() {
        governor.shareWith(ledger);
        ledger.next = state(false, 0, null, 1, false, false);

        Pacing.Mode judged = governor.reportAsync(Feedback.of(SITE, 429, 10).withRetryAfter(30)).toCompletableFuture()
                .join();

        assertThat(judged).isEqualTo(Pacing.Mode.CLUSTER);
        assertThat(ledger.reports).containsExactly(new Observation(429, false, true, 30L, false, null));
        DomainView view = governor.domain(SITE).orElseThrow();
        assertThat(view.slowDowns()).isEqualTo(1);
        assertThat(view.blockedUntil()).as("the ledger, not this node, sets floors").isNull();
    }

    @Test
    void anOperatorsChangeGoesToTheLedger() {
        governor.shareWith(ledger);
        ledger.next = state(false, 0, null, 3, false, false);

        governor.setRate(SITE, 3);
        governor.setMinDelay(SITE, 2_000);

        assertThat(ledger.changes).containsExactly(new LedgerChange(LedgerChange.Kind.RATE, 3),
                new LedgerChange(LedgerChange.Kind.MIN_DELAY, 2_000_000));
    }
}
