package io.sluice.console.bans;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BansViewModelTest {
    private static final Instant NOW = TestSessions.NOW;

    @Test
    void banTimeLeftReadsLikeAClock() {
        Ban hour = new Ban("1", BanType.IP, "10.0.0.1", "r", "a", NOW, NOW.plusSeconds(3_720));
        Ban minutes = new Ban("2", BanType.IP, "10.0.0.1", "r", "a", NOW, NOW.plusSeconds(600));
        Ban forever = new Ban("3", BanType.IP, "10.0.0.1", "r", "a", NOW, null);

        assertThat(BansViewModel.timeLeft(hour, NOW)).isEqualTo("1h 2m left");
        assertThat(BansViewModel.timeLeft(minutes, NOW)).isEqualTo("10m left");
        assertThat(BansViewModel.timeLeft(forever, NOW)).isEqualTo("permanent");
        assertThat(BansViewModel.timeLeft(minutes, NOW.plusSeconds(601))).isEqualTo("expired");
    }

    @Test
    void theListFollowsTheServerAndUnbanRemovesTheBan(@TempDir Path state) throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
            Session session = TestSessions.on(server, ui);
            BansViewModel model = new BansViewModel(session);
            session.client().ban("agent", "HTTrack", "site copier", null);
            session.snapshots().start();
            ui.tick();

            assertThat(model.bans()).singleElement().extracting(BansViewModel.BanRow::text).asString()
                    .isEqualTo("agent HTTrack   —  permanent   reason: site copier   by tester");
            assertThat(model.summaryProperty().get()).isEqualTo("1 ban in force");

            model.unban(model.bans().get(0).ban());

            assertThat(server.engine().policy().bans()).isEmpty();
            assertThat(model.bans()).as("refreshed at once").isEmpty();
            assertThat(model.actionResultProperty().get()).isEqualTo("Unbanned HTTrack");
        }
    }
}
