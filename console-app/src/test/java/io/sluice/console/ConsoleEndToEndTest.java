package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.dashboard.DashboardView;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.DemoTraffic;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The console against a real embedded front end with demo traffic, through the admin API only. */
@ExtendWith(ApplicationExtension.class)
class ConsoleEndToEndTest {
    @TempDir
    static Path state;

    private SluiceServer server;
    private DemoTraffic traffic;
    private DashboardView view;

    @Start
    void start(Stage stage) throws Exception {
        server = SluiceServer.start(ServerConfig.demo(state.resolve("s" + System.nanoTime())));
        traffic = DemoTraffic.start(server.frontUri(), List.of(
                new DemoTraffic.Actor("site copier", "127.0.0.66", "Mozilla/4.5 (compatible; HTTrack 3.0x)",
                        List.of("/", "/page/1"), 50),
                new DemoTraffic.Actor("browser", "127.0.0.11",
                        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                        List.of("/"), 500)));
        view = new DashboardView(new AdminClient(server.adminUri(), server.adminToken(), "tester"));
        stage.setScene(new Scene(view, 1400, 900));
        stage.show();
    }

    @AfterEach
    void stop() {
        view.close();
        traffic.close();
        server.close();
    }

    @Test
    void trafficArrivesAndOneClickBansTheSiteCopier(FxRobot robot) throws Exception {
        awaitRow("127.0.0.66");
        // the row is looked up again on the FX thread: a snapshot arriving meanwhile may have reordered the rows
        robot.interact(() -> view.select(indexOf("127.0.0.66")));
        assertThat(robot.lookup("#clientDetails").queryAs(Label.class).getText()).contains("127.0.0.66", "HTTrack");

        robot.clickOn("#banIp");

        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> server.engine().policy().bans().stream()
                .anyMatch(b -> b.type() == BanType.IP && b.value().equals("127.0.0.66")));
        assertThat(server.engine().policy().bans().get(0).author()).isEqualTo("tester");
        // Its requests turn into refusals: the heatmap row says BANNED once the next snapshot arrives.
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> rowStatus("127.0.0.66").equals("BANNED"));
    }

    @Test
    void pauseNeedsAConfirmationAndResumeLiftsIt(FxRobot robot) throws Exception {
        robot.clickOn("#pauseButton");
        robot.clickOn("#confirmPause");

        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> server.engine().policy().pause().all());
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#pauseBanner").queryAs(Label.class)
                .isVisible());
        assertThat(robot.lookup("#pauseBanner").queryAs(Label.class).getText()).isEqualTo("SERVICE PAUSED");

        robot.clickOn("#resumeButton");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !server.engine().policy().pause().all());
    }

    @Test
    void aLimitEditedInTheFormChangesTheServersPolicyAndABadValueIsShownByItsField(FxRobot robot)
            throws Exception {
        robot.clickOn("Limits");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> "10".equals(field(robot, "hitStack.maxHits")));

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("0"));
        robot.clickOn("#applyLimits");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !robot.lookup("#hitStack-maxHits-error")
                .queryAs(Label.class).getText().isEmpty());
        assertThat(robot.lookup("#hitStack-maxHits-error").queryAs(Label.class).getText())
                .contains("between 1 and");
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(10);

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("25"));
        robot.clickOn("#applyLimits");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> server.engine().policy().hitStack().maxHits() == 25);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#limitsStatus").queryAs(Label.class)
                .getText().startsWith("Applied: policy version"));
    }

    @Test
    void aConflictWithAnotherOperatorIsExplained(FxRobot robot) throws Exception {
        robot.clickOn("Limits");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> "10".equals(field(robot, "hitStack.maxHits")));
        // Someone else changes the same field meanwhile (a change of another field would be merged).
        server.engine().updatePolicy(p -> p.withHitStack(new io.sluice.engine.policy.Policy.HitStack(15, 12)));

        robot.interact(() -> robot.lookup("#hitStack-maxHits").queryAs(TextField.class).setText("30"));
        robot.clickOn("#applyLimits");

        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#limitsStatus").queryAs(Label.class)
                .getText().startsWith("Someone else changed the policy"));
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(12);
    }

    @Test
    void aGivenUpDomainIsAnAlertAndTheOperatorRevivesItAndSetsADelay(FxRobot robot) throws Exception {
        for (int i = 0; i < 20; i++) {
            server.governor().report(Feedback.of("down.example", 503, 20));
        }
        robot.clickOn("Domains");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !robot.lookup("#domainAlerts")
                .queryListView().getItems().isEmpty());
        assertThat(robot.lookup("#domainAlerts").queryListView().getItems().get(0).toString())
                .contains("down.example", "20 errors in a row");

        // The table is redrawn from every snapshot, so a cell found now may be gone or show another domain by
        // the time the pointer reaches it: click until the details show the domain
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> {
            domainCell(robot, "down.example").ifPresent(cell -> robot.clickOn(cell));
            return robot.lookup("#selectedDomain").queryAs(Label.class).getText().startsWith("down.example");
        });
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> !robot.lookup("#reviveDomain").queryButton()
                .isDisabled());
        robot.clickOn("#reviveDomain");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !server.governor().domain("down.example")
                .orElseThrow().givenUp());

        robot.clickOn("#domainMinDelay").write("10");
        robot.clickOn("#setDomainMinDelay");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> server.governor().domain("down.example")
                .orElseThrow().minDelayMillis() == 10_000);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#domainActionResult")
                .queryAs(Label.class).getText().equals("Minimum delay set: down.example"));

        robot.interact(() -> robot.lookup("#domainRate").queryAs(TextField.class).setText("fast"));
        robot.clickOn("#setDomainRate");
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#domainActionResult")
                .queryAs(Label.class).getText().contains("requests per second"));
        assertThat(server.state().audit().newestFirst(5).get(0).action()).isEqualTo("domain.min-delay");
    }

    private static java.util.Optional<javafx.scene.control.TableCell<?, ?>> domainCell(FxRobot robot, String text) {
        return robot.lookup("#domainsTable .table-cell").<javafx.scene.control.TableCell<?, ?>>queryAll().stream()
                .filter(cell -> text.equals(cell.getText())).findFirst();
    }

    private static String field(FxRobot robot, String id) {
        return robot.lookup("#" + id.replace('.', '-')).queryAs(TextField.class).getText();
    }

    private void awaitRow(String ip) throws Exception {
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> indexOf(ip) >= 0);
    }

    private int indexOf(String ip) {
        var snapshot = view.model().snapshotProperty().get();
        if (snapshot == null) {
            return -1;
        }
        List<ClientRow> rows = snapshot.topClients();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).ip().equals(ip)) {
                return i;
            }
        }
        return -1;
    }

    private String rowStatus(String ip) {
        int index = indexOf(ip);
        return index < 0 ? "" : view.model().snapshotProperty().get().topClients().get(index).status().name();
    }
}
