package io.sluice.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminException;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.LatencySummary;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The top bar without the toolkit. */
class ShellViewModelTest {
    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();

    @Test
    void aPauseIsShownUnmistakably() {
        ShellViewModel model = new ShellViewModel(TestSessions.offline(ui), () -> { });
        model.apply(snapshot(new Policy.Pause(true, List.of())));
        assertThat(model.pauseBannerProperty().get()).isEqualTo("SERVICE PAUSED");
        assertThat(model.pausedProperty().get()).isTrue();
        assertThat(model.policyVersionProperty().get()).isEqualTo("policy v7");

        model.apply(snapshot(new Policy.Pause(false, List.of(RequestClass.CRAWLER))));
        assertThat(model.pauseBannerProperty().get()).isEqualTo("PAUSED: CRAWLER");
    }

    @Test
    void theConnectionSaysWhichServerAsWhomAndWhyItIsDown() {
        ShellViewModel model = new ShellViewModel(TestSessions.offline(ui), () -> { });
        assertThat(model.stateProperty().get()).isEqualTo(ConnectionState.CONNECTING);

        model.apply(snapshot(Policy.Pause.NONE));
        assertThat(model.connectionProperty().get()).isEqualTo("Connected to test as admin");
        assertThat(model.stateProperty().get()).isEqualTo(ConnectionState.CONNECTED);

        model.failed(new AdminException(AdminException.Kind.UNREACHABLE, "connection refused"));
        assertThat(model.connectionProperty().get()).isEqualTo("Unreachable, retrying: test");
        assertThat(model.stateProperty().get()).isEqualTo(ConnectionState.UNREACHABLE);
        assertThat(model.policyVersionProperty().get()).as("the last data stays").isEqualTo("policy v7");

        model.failed(new AdminException(AdminException.Kind.CERTIFICATE_CHANGED, "THE CERTIFICATE OF h:1 CHANGED"));
        assertThat(model.stateProperty().get()).isEqualTo(ConnectionState.CERTIFICATE_CHANGED);
        assertThat(model.connectionProperty().get()).isEqualTo("REFUSED: THE CERTIFICATE OF h:1 CHANGED");
        model.failed(new AdminException(AdminException.Kind.CERTIFICATE_UNKNOWN, "the certificate of h:1 is not "
                + "trusted yet"));
        assertThat(model.stateProperty().get()).as("an untrusted certificate mid-session: refused just as loudly")
                .isEqualTo(ConnectionState.CERTIFICATE_CHANGED);
    }

    @Test
    void pauseAndResumeActOnTheChosenScope(@TempDir Path state) throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            Session session = TestSessions.on(server, ui);
            ShellViewModel model = new ShellViewModel(session, () -> { });
            session.snapshots().start();

            model.scopeProperty().set(PauseScope.CRAWLER);
            model.pause().execute();
            assertThat(server.engine().policy().pause().classes()).containsExactly(RequestClass.CRAWLER);
            assertThat(server.engine().policy().pause().all()).isFalse();
            assertThat(model.actionResultProperty().get()).isEqualTo("Paused CRAWLER");
            assertThat(model.pauseBannerProperty().get()).as("refreshed at once").isEqualTo("PAUSED: CRAWLER");

            model.resume().execute();
            assertThat(server.engine().policy().pause()).isEqualTo(Policy.Pause.NONE);
            assertThat(model.pausedProperty().get()).isFalse();
        }
    }

    @Test
    void theBrowserCheckSaysWhereItStandsAndItsModeIsSetInOneActionThatIsAudited(@TempDir Path state)
            throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            Session session = TestSessions.on(server, ui);
            ShellViewModel model = new ShellViewModel(session, () -> { });
            session.snapshots().start();
            session.snapshots().refreshSoon();
            assertThat(model.checkModeProperty().get()).isEqualTo(BrowserCheck.Mode.ADAPTIVE);
            assertThat(model.browserCheckProperty().get()).isEqualTo("Check adaptive: 0 asked, 0 passed, 0 in use");
            assertThat(model.applyCheckMode().executableProperty().get()).as("nothing to change").isFalse();

            model.checkModeProperty().set(BrowserCheck.Mode.ALWAYS);
            model.applyCheckMode().execute();
            assertThat(server.engine().policy().browserCheck().mode()).isEqualTo(BrowserCheck.Mode.ALWAYS);
            assertThat(model.actionResultProperty().get()).isEqualTo("Browser check always");
            assertThat(server.state().audit().newestFirst(1).get(0).toString())
                    .contains("browser-check.mode", "browser check always");
        }
    }

    @Test
    void underPressureIsSaid() {
        ShellViewModel model = new ShellViewModel(TestSessions.offline(ui), () -> { });
        Snapshot quiet = snapshot(Policy.Pause.NONE);
        model.apply(withCheck(quiet, new BrowserCheckCounts(BrowserCheck.Mode.ADAPTIVE, true, 40, 3, 1, 2, 9, 0, 3, 0,
                List.of(), 0, List.of(), null)));
        assertThat(model.browserCheckProperty().get())
                .isEqualTo("Check adaptive, under pressure: 40 asked, 4 passed, 3 in use");
        assertThat(model.underPressureProperty().get()).isTrue();
    }

    private static Snapshot withCheck(Snapshot s, BrowserCheckCounts check) {
        return new Snapshot(s.takenAt(), s.policyVersion(), s.pause(), s.seconds(), s.load(), s.upstreamLatency(),
                s.topClients(), s.clients(), s.bans(), s.totals(), s.shadow(), s.cluster(), s.costliestClients(),
                s.networks(), s.networkTable(), s.costLastMinute(), s.costTotals(), s.costSummary(), check);
    }

    @Test
    void switchingServerIsTheShellsCallers() {
        AtomicBoolean switched = new AtomicBoolean();
        ShellViewModel model = new ShellViewModel(TestSessions.offline(ui), () -> switched.set(true));
        model.switchServer().execute();
        assertThat(switched).isTrue();
    }

    private static Snapshot snapshot(Policy.Pause pause) {
        return new Snapshot(TestSessions.NOW, 7, pause, List.of(), new LoadState(0, 0, 15, 10),
                new LatencySummary(0, 0, 0, 0, 0), List.of(), new ClientTableStats(0, 100_000, 0), List.of(),
                Map.of());
    }
}
