package io.sluice.server.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The versions an operator's stale edit can be merged from: whole ones, and the automatic ones rebuilt. */
class PolicyHistoryTest {
    private static final Instant AT = Instant.parse("2026-11-25T12:00:00Z");

    private static Ban ban(int n) {
        return new Ban("auto-" + n, BanType.IP, "198.51.100." + (n % 250), "escalation", "sluice", AT,
                AT.plusSeconds(600));
    }

    /** The next automatic version: one ban added, and (every third) the one added two versions before removed. */
    private static Policy automatic(PolicyHistory history, Policy live, int n) {
        BanChange change = new BanChange(List.of(ban(n)), n % 3 == 0 && n >= 2 ? List.of(ban(n - 2)) : List.of());
        Policy next = change.applyTo(live).withVersion(live.version() + 1);
        history.rememberAutomatic(next, change);
        return next;
    }

    @Test
    void aFormOpenedBeforeAStormOfAutomaticVersionsStillFindsItsVersionAfterAnyNumberOfThem() {
        Policy first = Policy.defaults();
        PolicyHistory history = new PolicyHistory(first);
        Policy operator = first.withHitStack(new Policy.HitStack(15, 7)).withVersion(2);
        history.remember(operator);
        Policy live = operator;
        Policy atMidStorm = null;
        for (int n = 0; n < 500; n++) {
            live = automatic(history, live, n);
            if (n == 250) {
                atMidStorm = live;
            }
        }

        assertThat(history.version(1)).contains(first);
        assertThat(history.version(2)).contains(operator);
        assertThat(history.version(atMidStorm.version())).contains(atMidStorm);
        assertThat(history.version(live.version())).contains(live);
    }

    @Test
    void aVersionBeforeMoreOperatorsChangesThanAreKeptIsForgotten() {
        Policy first = Policy.defaults();
        PolicyHistory history = new PolicyHistory(first);
        Policy live = automatic(history, first, 0);
        long automaticVersion = live.version();
        for (int n = 0; n < PolicyHistory.SIZE; n++) {
            live = live.withHitStack(new Policy.HitStack(15, 10 + n % 2)).withVersion(live.version() + 1);
            history.remember(live);
        }

        assertThat(history.version(1)).isEmpty();
        assertThat(history.version(automaticVersion)).isEmpty();
        assertThat(history.version(live.version())).contains(live);
    }

    @Test
    void automaticVersionsBeyondTheBansKeptAreForgottenNotRebuiltWrong() {
        Policy first = Policy.defaults();
        PolicyHistory history = new PolicyHistory(first);
        Policy live = first;
        for (int n = 0; n < PolicyHistory.MAX_AUTOMATIC_BANS + 10; n++) {
            BanChange change = new BanChange(List.of(ban(n)), List.of());
            live = change.applyTo(live).withVersion(live.version() + 1);
            history.rememberAutomatic(live, change);
        }

        assertThat(history.version(1)).contains(first);
        assertThat(history.version(5)).as("its changes are forgotten").isEmpty();
        assertThat(history.version(live.version())).contains(live);
    }
}
