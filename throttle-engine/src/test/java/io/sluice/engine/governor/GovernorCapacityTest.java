package io.sluice.engine.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Whatever the workers send, the governor's memory and its saved file stay bounded. */
class GovernorCapacityTest {
    private final SimClock clock = new SimClock();
    private final CrawlGovernor governor = new CrawlGovernor(clock, () -> GovernorPolicy.DEFAULTS,
            new SplittableRandom(1), new CrawlGovernor.Capacity(100, 5, 3), Map.of());

    private void giveUp(String domain) {
        for (int i = 0; i < GovernorPolicy.DEFAULTS.giveUpAfterErrors(); i++) {
            governor.report(Feedback.of(domain, 500, 10));
        }
    }

    @Test
    void aFloodOfDomainsKeepsAtMostTheCapacityAndForgetsNoGivenUpMark() {
        giveUp("dead.example");
        for (int i = 0; i < 10_000; i++) {
            governor.acquire("spray" + i + ".example");
            clock.advance(Duration.ofMillis(1));
        }
        assertThat(governor.snapshot().tracked()).isLessThanOrEqualTo(100);
        assertThat(governor.acquire("dead.example").reason()).isEqualTo(PermitReason.GIVEN_UP);
    }

    @Test
    void pastTheCapTheOldestGivenUpMarkIsForgotten() {
        AtomicInteger saves = new AtomicInteger();
        governor.onSettingsChanged(saves::incrementAndGet);
        for (int i = 0; i < 8; i++) {
            giveUp("dead" + i + ".example");
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(governor.settings().keySet()).containsExactly("dead3.example", "dead4.example",
                "dead5.example", "dead6.example", "dead7.example");
        assertThat(governor.snapshot().alerts()).hasSize(8);
        assertThat(saves.get()).isGreaterThanOrEqualTo(8);
    }

    @Test
    void pastTheCapAnOperatorMustRemoveAMinimumDelayBeforeSettingAnother() {
        governor.setMinDelay("a.example", 1_000);
        governor.setMinDelay("b.example", 1_000);
        governor.setMinDelay("c.example", 1_000);
        assertThatThrownBy(() -> governor.setMinDelay("d.example", 1_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 3 domains");
        assertThat(governor.settings()).doesNotContainKey("d.example");

        governor.setMinDelay("c.example", 5_000);
        governor.setMinDelay("a.example", 0);
        governor.setMinDelay("d.example", 1_000);
        assertThat(governor.settings().keySet()).containsExactly("b.example", "c.example", "d.example");
    }
}
