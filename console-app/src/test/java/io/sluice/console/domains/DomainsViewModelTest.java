package io.sluice.console.domains;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.GovernorAlert;
import io.sluice.engine.governor.GovernorSnapshot;
import io.sluice.engine.governor.PermitReason;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DomainsViewModelTest {
    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    private static DomainView domain(String name, double rate, BreakerState breaker, Instant blockedUntil,
            PermitReason reason, boolean givenUp, List<Integer> statuses) {
        return new DomainView(name, rate, rate, 0, 0, breaker, 40, 6, blockedUntil, reason, 2, 0, givenUp,
                statuses, 120, 300, 118, 3, NOW, false, 80);
    }

    @Test
    void rowsSayWhatIsWrongInWords() {
        DomainsViewModel model = new DomainsViewModel(TestSessions.offline(new CurrentThreadUiExecutor()));
        model.update(new GovernorSnapshot(NOW, 3, List.of(
                domain("down.example", 0.05, BreakerState.OPEN, null, null, true, List.of(503, 503, 0)),
                domain("shop.example", 2.5, BreakerState.CLOSED, NOW.plusSeconds(95), PermitReason.RETRY_AFTER, false,
                        List.of(200, 200, 429)),
                domain("news.example", 4, BreakerState.CLOSED, null, null, false, List.of(200))),
                List.of(new GovernorAlert(1, NOW, "down.example", "20 errors in a row (last: HTTP 503)"))));

        assertThat(model.rows()).extracting(DomainsViewModel.DomainRow::breaker)
                .containsExactly("GIVEN UP", "closed", "closed");
        assertThat(model.rows().get(0).rate()).isEqualTo("1 per 20.0 s");
        assertThat(model.rows().get(0).statuses()).isEqualTo("503×2 · no answer×1");
        assertThat(model.rows().get(1).blocked()).isEqualTo("Retry-After, 1 min 35 s left");
        assertThat(model.rows().get(1).rate()).isEqualTo("2.50/s");
        assertThat(model.rows()).extracting(DomainsViewModel.DomainRow::needsAttention)
                .containsExactly(true, true, false);
        assertThat(model.alerts()).singleElement().asString().contains("down.example", "20 errors in a row");
        assertThat(model.summaryProperty().get()).isEqualTo(
                "3 domains tracked · 1 given up · 1 breaker not closed · 1 blocked");
    }

    @Test
    void theSelectionFollowsItsDomainAndOnlyAGivenUpOneCanBeRevived() {
        DomainsViewModel model = new DomainsViewModel(TestSessions.offline(new CurrentThreadUiExecutor()));
        model.update(new GovernorSnapshot(NOW, 2, List.of(
                domain("down.example", 0.05, BreakerState.OPEN, null, null, true, List.of(503)),
                domain("news.example", 4, BreakerState.CLOSED, null, null, false, List.of(200))), List.of()));
        assertThat(model.setRate().executableProperty().get()).as("nothing selected").isFalse();

        model.select("down.example");
        assertThat(model.revive().executableProperty().get()).isTrue();
        model.update(new GovernorSnapshot(NOW, 2, List.of(
                domain("news.example", 4, BreakerState.CLOSED, null, null, false, List.of(200)),
                domain("down.example", 0.05, BreakerState.CLOSED, null, null, false, List.of(503))), List.of()));

        assertThat(model.selectedProperty().get().domain()).isEqualTo("down.example");
        assertThat(model.selectedTextProperty().get()).startsWith("down.example\nclosed");
        assertThat(model.revive().executableProperty().get()).as("revived meanwhile").isFalse();
    }

    @Test
    void aRateThatIsNotANumberIsRefusedBeforeAnythingIsSent() {
        DomainsViewModel model = new DomainsViewModel(TestSessions.offline(new CurrentThreadUiExecutor()));
        model.update(new GovernorSnapshot(NOW, 1, List.of(
                domain("news.example", 4, BreakerState.CLOSED, null, null, false, List.of(200))), List.of()));
        model.select("news.example");
        model.rateProperty().set("fast");

        model.setRate().execute();

        assertThat(model.actionResultProperty().get()).isEqualTo(
                "Failed: the rate must be a number of requests per second, e.g. 2.5");
    }

    @Test
    void delaysNameTheirSource() {
        DomainView both = new DomainView("a.example", 1, 0.1, 10_000, 2_500, BreakerState.CLOSED, 0, 0, null, null,
                0, 0, false, List.of(), 0, 0, 0, 0, NOW, true, -1);
        DomainsViewModel.DomainRow row = DomainsViewModel.row(both, NOW);
        assertThat(row.minDelay()).isEqualTo("10 s (operator), 2.5 s (robots.txt)");
        assertThat(row.rate()).isEqualTo("1.00/s (1 per 10.0 s after delays)");
    }

    @Test
    void operatorInputIsCheckedBeforeItIsSent() {
        assertThat(DomainsViewModel.parseRate(" 2.5 ")).isEqualTo(2.5);
        assertThat(DomainsViewModel.parseDelayMillis("1.5")).isEqualTo(1_500);
        assertThatThrownBy(() -> DomainsViewModel.parseRate("fast")).hasMessageContaining("requests per second");
        assertThatThrownBy(() -> DomainsViewModel.parseRate("0")).hasMessageContaining("above 0");
        assertThatThrownBy(() -> DomainsViewModel.parseDelayMillis("-1")).hasMessageContaining("negative");
    }
}
