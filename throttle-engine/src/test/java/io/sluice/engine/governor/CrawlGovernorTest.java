package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What only a node's own governor does: names, saved settings, the snapshot, the breaker's statistics. The
 * governor's rules (pacing, AIMD, backoff, breaker, give-up, overrides, the permit for any of several domains)
 * are in embedded-server's {@code GovernorSpecification}, run on this governor and on the cluster's ledger.
 */
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
    void theBreakersErrorShareIsJudgedWithNinetyFivePercentConfidence() {
        assertThat(CircuitBreaker.wilsonLowerBound(15, 100)).as("15 of 100 is not yet proof of > 10%")
                .isLessThan(0.10);
        assertThat(CircuitBreaker.wilsonLowerBound(90, 600)).as("90 of 600 is").isGreaterThan(0.10);
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
