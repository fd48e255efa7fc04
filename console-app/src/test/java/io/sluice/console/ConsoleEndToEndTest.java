package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.chart.AuditMark;
import io.sluice.console.live.LiveView;
import io.sluice.console.shell.ShellView;
import io.sluice.console.ui.ConsoleScene;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.demo.Demo;
import io.sluice.server.demo.DemoTraffic;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.TableCell;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.shape.Line;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The console's shell and rooms against a real embedded front end with traffic, through the admin API only. */
@ExtendWith(ApplicationExtension.class)
class ConsoleEndToEndTest {
    /** The policy is changed as an operator changes it: through the server's PolicyChanges, audited. */
    private static final PolicyChanges.Author OPERATOR = new PolicyChanges.Author("admin", "test");
    /** The longest a step waits (s): a snapshot's round trip took over 10 s on a loaded CI machine. */
    private static final long WAIT = 30;

    @TempDir
    static Path state;

    private SluiceServer server;
    private DemoTraffic traffic;
    private ShellView shell;
    private LiveView live;
    private FxUiExecutor ui;

    @Start
    void start(Stage stage) throws Exception {
        server = Demo.start(ServerConfig.demo(state.resolve("s" + System.nanoTime())));
        traffic = DemoTraffic.start(server.frontUri(), List.of(
                new DemoTraffic.Actor("site copier", "127.0.0.66", "Mozilla/4.5 (compatible; HTTrack 3.0x)",
                        List.of("/", "/page/1"), 50),
                new DemoTraffic.Actor("browser", "127.0.0.11",
                        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                        List.of("/"), 500)));
        ui = new FxUiExecutor();
        Session session = new Session("demo", "admin", new AdminClient(server.adminUri(), server.adminToken(),
                "tester"), ui, Clock.systemUTC());
        shell = new ShellView(session, Rooms.open(Rooms.standard(), session), () -> { });
        live = shell.room("live", LiveView.class).orElseThrow();
        stage.setScene(ConsoleScene.of(shell.view(), 1400, 900));
        stage.show();
    }

    @AfterEach
    void stop() {
        shell.close();
        ui.close();
        traffic.close();
        server.close();
    }

    @Test
    void trafficArrivesAndOneClickBansTheSiteCopierWhoseBanIsMarkedOnTheChart(FxRobot robot) throws Exception {
        awaitRow("127.0.0.66");
        // the row is looked up again on the FX thread: a snapshot arriving meanwhile may have reordered the rows
        robot.interact(() -> live.model().select(indexOf("127.0.0.66")));
        assertThat(robot.lookup("#clientDetails").queryAs(Label.class).getText()).contains("127.0.0.66", "HTTrack");

        robot.clickOn("#banIp");

        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.engine().policy().bans().stream()
                .anyMatch(b -> b.type() == BanType.IP && b.value().equals("127.0.0.66")));
        assertThat(server.engine().policy().bans().get(0).author()).isEqualTo("tester");
        // Its requests turn into refusals: the heatmap row says BANNED once the next snapshot arrives.
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> rowStatus("127.0.0.66").equals("BANNED"));
        // And the ban is a mark on the rate chart's time axis, where its effect shows.
        // (read on the FX thread, which draws the marks; a chart lays its marks out a pulse after they arrive)
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> onFx(() -> live.visibleMarks().stream()
                .anyMatch(m -> m.kind() == AuditMark.Kind.BAN && m.detail().contains("127.0.0.66"))));
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> onFx(() -> {
            var lines = robot.lookup("#rateChart .audit-mark.ban").queryAllAs(Line.class);
            return !lines.isEmpty() && lines.stream().allMatch(Line::isVisible);
        }));
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> onFx(() -> robot
                .lookup("#refusedChart .audit-mark-label.ban").queryAllAs(Label.class).stream()
                .anyMatch(label -> label.getText().contains("ban"))));
    }

    @Test
    void loadIsShownAsBarsAgainstItsLimits(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#inFlightLabel").queryAs(Label.class)
                .getText().endsWith("/ 15"));
        assertThat(robot.lookup("#waitingLabel").queryAs(Label.class).getText()).endsWith("/ 10");
        assertThat(robot.lookup("#inFlightBar").queryAs(ProgressBar.class).getStyleClass())
                .containsAnyOf("normal", "high", "full");
    }

    @Test
    void pauseNeedsAConfirmationAndResumeLiftsIt(FxRobot robot) throws Exception {
        robot.clickOn("#pauseButton");
        robot.clickOn("#confirmPause");

        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.engine().policy().pause().all());
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#pauseBanner").queryAs(Label.class)
                .isVisible());
        assertThat(robot.lookup("#pauseBanner").queryAs(Label.class).getText()).isEqualTo("SERVICE PAUSED");
        // Read on the FX thread, which redraws the marks (read from here, the list can change under the loop).
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> onFx(() -> live.visibleMarks().stream()
                .anyMatch(m -> m.kind() == AuditMark.Kind.PAUSE)));

        robot.clickOn("#resumeButton");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !server.engine().policy().pause().all());
    }

    @Test
    void aLimitEditedInTheFormChangesTheServersPolicyAndABadValueIsShownByItsField(FxRobot robot)
            throws Exception {
        robot.clickOn("#limits");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> "10".equals(text(robot, "hitStack-maxHits")));

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("0"));
        robot.clickOn("#applyLimits");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !robot.lookup("#hitStack-maxHits-error")
                .queryAs(Label.class).getText().isEmpty());
        assertThat(robot.lookup("#hitStack-maxHits-error").queryAs(Label.class).getText())
                .contains("between 1 and");
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(10);

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("25"));
        robot.clickOn("#applyLimits");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.engine().policy().hitStack().maxHits() == 25);
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#limitsStatus").queryAs(Label.class)
                .getText().startsWith("Applied: policy version"));
    }

    @Test
    void aRouteAddedInTheFormIsAppliedAndAPathTheServerRefusesIsShownInItsCell(FxRobot robot) throws Exception {
        robot.clickOn("#limits");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> "0".equals(text(robot, "routes-0-weight")));

        robot.interact(() -> robot.lookup("#routes-add").queryButton().fire());
        robot.interact(() -> {
            robot.lookup("#routes-1-match").<ChoiceBox<String>>query().setValue("prefix");
            robot.lookup("#routes-1-path").queryAs(TextField.class).setText("search");
            robot.lookup("#routes-1-weight").queryAs(TextField.class).setText("3");
            robot.lookup("#routes-1-limits").queryAs(TextField.class).setText("5, 60");
        });
        robot.interact(() -> robot.lookup("#applyLimits").queryButton().fire());
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> pathError(robot).contains("starts with '/'"));
        assertThat(server.engine().policy().routes()).isEqualTo(Route.DEFAULTS);

        robot.interact(() -> robot.lookup("#routes-1-path").queryAs(TextField.class).setText("/search"));
        robot.interact(() -> robot.lookup("#applyLimits").queryButton().fire());

        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.engine().policy().routes().size() == 2);
        Route search = server.engine().policy().routes().get(1);
        assertThat(search.path()).isEqualTo("/search");
        assertThat(search.weight()).isEqualTo(3);
        assertThat(search.limits()).isEqualTo(new Policy.HitStack(60, 5));
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> pathError(robot).isEmpty());
    }

    /** The second route's path error, or "(no row yet)" while the form's rows are built again after an apply. */
    private static String pathError(FxRobot robot) {
        return robot.lookup("#routes-1-path-error").tryQuery().map(label -> ((Label) label).getText())
                .orElse("(no row yet)");
    }

    @Test
    void aConflictWithAnotherOperatorIsExplained(FxRobot robot) throws Exception {
        robot.clickOn("#limits");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> "10".equals(text(robot, "hitStack-maxHits")));
        // Someone else changes the same field meanwhile (a change of another field would be merged).
        server.policyChanges().edit(OPERATOR, p -> p.withHitStack(new Policy.HitStack(15, 12)));

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("30"));
        robot.clickOn("#applyLimits");

        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#limitsStatus").queryAs(Label.class)
                .getText().startsWith("Someone else changed the policy"));
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(12);
    }

    @Test
    void theBansRoomUnbans(FxRobot robot) throws Exception {
        server.policyChanges().edit(OPERATOR, p -> p.withBans(List.of(new Ban("b1", BanType.AGENT,
                "HTTrack", "site copier", "alice", Instant.now(), null))));
        robot.clickOn("#bans");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !robot.lookup("#banList").queryListView().getItems()
                .isEmpty());

        // The list view keeps spare cells out of the scene; the ban's Unban is the one shown.
        // (found and pressed on the FX thread in one go: a cell found from here can be recycled before the click)
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> onFx(() -> robot.lookup("#banList .unban")
                .match(n -> n.getScene() != null && n.isVisible()).tryQuery().isPresent()));
        robot.interact(() -> robot.lookup("#banList .unban").match(n -> n.getScene() != null && n.isVisible())
                .queryButton().fire());

        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.engine().policy().bans().isEmpty());
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#bansResult").queryAs(Label.class)
                .getText().equals("Unbanned HTTrack"));
    }

    @Test
    void aGivenUpDomainIsAnAlertAndTheOperatorRevivesItAndSetsADelay(FxRobot robot) throws Exception {
        for (int i = 0; i < 20; i++) {
            server.governor().report(Feedback.of("down.example", 503, 20));
        }
        robot.clickOn("#domains");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !robot.lookup("#domainAlerts")
                .queryListView().getItems().isEmpty());
        assertThat(robot.lookup("#domainAlerts").queryListView().getItems().get(0).toString())
                .contains("down.example", "20 errors in a row");

        // The table is redrawn from every snapshot, so a cell found now may be gone or show another domain by
        // the time the pointer reaches it: click until the details show the domain
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> {
            domainCell(robot, "down.example").ifPresent(cell -> robot.clickOn(cell));
            return robot.lookup("#selectedDomain").queryAs(Label.class).getText().startsWith("down.example");
        });
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> !robot.lookup("#reviveDomain").queryButton()
                .isDisabled());
        robot.clickOn("#reviveDomain");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !server.governor().domain("down.example")
                .orElseThrow().givenUp());

        robot.clickOn("#domainMinDelay").write("10");
        robot.clickOn("#setDomainMinDelay");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> server.governor().domain("down.example")
                .orElseThrow().minDelayMillis() == 10_000);
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#domainActionResult")
                .queryAs(Label.class).getText().equals("Minimum delay set: down.example"));

        robot.interact(() -> robot.lookup("#domainRate").queryAs(TextField.class).setText("fast"));
        robot.clickOn("#setDomainRate");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> robot.lookup("#domainActionResult")
                .queryAs(Label.class).getText().contains("requests per second"));
        assertThat(server.state().audit().newestFirst(5).get(0).action()).isEqualTo("domain.min-delay");
    }

    @Test
    void theAuditRoomShowsWhatAnActionChanged(FxRobot robot) throws Exception {
        server.policyChanges().edit(OPERATOR, p -> p.withHitStack(new Policy.HitStack(15, 12)));
        new AdminClient(server.adminUri(), server.adminToken(), "tester").pause(true, null);
        robot.clickOn("#audit");
        WaitForAsyncUtils.waitFor(WAIT, TimeUnit.SECONDS, () -> !robot.lookup("#auditList").queryListView()
                .getItems().isEmpty());

        robot.interact(() -> robot.lookup("#auditList").queryListView().getSelectionModel().select(0));

        assertThat(robot.lookup("#auditDetails").queryAs(TextArea.class).getText())
                .contains("pause", "false -> true");
    }

    /** The domains table's cell showing {@code text}, looked up on the FX thread, which redraws the polled table. */
    private static Optional<TableCell<?, ?>> domainCell(FxRobot robot, String text) throws Exception {
        return WaitForAsyncUtils.asyncFx(() -> robot.lookup("#domainsTable .table-cell").<TableCell<?, ?>>queryAll()
                .stream().filter(cell -> text.equals(cell.getText())).findFirst()).get();
    }

    private static String text(FxRobot robot, String id) {
        return robot.lookup("#" + id).queryAs(TextField.class).getText();
    }

    private void awaitRow(String ip) throws Exception {
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> indexOf(ip) >= 0);
    }

    /**
     * Where the row of the client at {@code ip} is, or -1. Not its address's row: a snapshot taken between a request's
     * push on its address and on its client shows the address ahead of its client for a moment, under the same ip.
     */
    private int indexOf(String ip) {
        var snapshot = live.model().snapshotProperty().get();
        if (snapshot == null) {
            return -1;
        }
        List<ClientRow> rows = snapshot.topClients();
        for (int i = 0; i < rows.size(); i++) {
            if (isClient(rows.get(i), ip)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isClient(ClientRow row, String ip) {
        return !row.address() && row.ip().equals(ip);
    }

    /** The client's status in the latest snapshot (read once: the next one may replace it meanwhile). */
    private String rowStatus(String ip) {
        var snapshot = live.model().snapshotProperty().get();
        return snapshot == null ? "" : snapshot.topClients().stream().filter(row -> isClient(row, ip)).findFirst()
                .map(row -> row.status().name()).orElse("");
    }

    private static <T> T onFx(Callable<T> read) throws Exception {
        return WaitForAsyncUtils.asyncFx(read).get(5, TimeUnit.SECONDS);
    }
}
