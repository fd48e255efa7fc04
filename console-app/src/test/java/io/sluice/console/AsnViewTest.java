package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.live.AsnViewModel;
import io.sluice.console.live.LiveView;
import io.sluice.console.ui.ConsoleScene;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The networks tab's autonomous systems in a real window at 1366x768, against a real server started with an IP-to-ASN
 * file that puts loopback (where this test's requests come from) in a private-use AS: the AS row appears with its
 * name and hits, selecting it shows its networks, and its action has the browser check ask it, then stop. Without
 * a file the table takes no room (FxmlTest and the other live-room tests run so).
 */
@ExtendWith(ApplicationExtension.class)
class AsnViewTest {
    private static final String CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            + "Chrome/131.0.0.0 Safari/537.36";

    private SluiceServer server;
    private FxUiExecutor ui;
    private Session session;
    private LiveView live;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        Path dir = Files.createTempDirectory("sluice-asn");
        Path asns = dir.resolve("ip2asn-v4.tsv");
        Files.writeString(asns, "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n"
                + "127.0.0.0\t127.255.255.255\t64500\tZZ\tTEST-LOOPBACK\n");
        server = Demo.start(ServerConfig.demo(dir.resolve("state")).withAsnFile(asns));
        AdminClient client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
        ui = new FxUiExecutor();
        session = new Session("test", "admin", client, ui, Clock.systemUTC());
        live = new LiveView(session);
        live.showNetworks();
        session.snapshots().start(); // as the shell does
        stage.setScene(ConsoleScene.of(live.view(), 1366, 768));
        stage.show();
    }

    @AfterEach
    void stop() {
        session.close();
        ui.close();
        server.close();
    }

    @Test
    void theAutonomousSystemOfTheRequestsAppearsWithItsNetworksAndItsAction(FxRobot robot) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < 3; i++) {
            http.send(HttpRequest.newBuilder(server.frontUri().resolve("/")).header("User-Agent", CHROME)
                    .timeout(Duration.ofSeconds(15)).build(), HttpResponse.BodyHandlers.discarding());
        }

        TableView<?> table = robot.lookup("#asnTable").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> !table.getItems().isEmpty()
                && ((AsnViewModel.Row) table.getItems().get(0)).system().hits() >= 3);
        AsnViewModel.Row loopback = (AsnViewModel.Row) table.getItems().get(0);
        assertThat(loopback.asn()).isEqualTo("AS64500");
        assertThat(loopback.name()).isEqualTo("TEST-LOOPBACK");
        assertThat(loopback.system().networks()).isEqualTo(1);
        Node view = robot.lookup("#asnView").query();
        assertThat(view.isVisible()).isTrue();
        assertThat(view.getBoundsInParent().getHeight()).as("readable at 1366x768").isGreaterThan(100);
        assertThat(robot.lookup("#asnTitle").queryAs(Label.class).getText())
                .contains("ip2asn-v4.tsv", "2 ranges", "2 systems");

        robot.interact(() -> table.getSelectionModel().select(0));
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> robot.lookup("#asnDetails").queryAs(Label.class)
                .getText().startsWith("AS64500 TEST-LOOPBACK: 1 network"));
        assertThat(robot.lookup("#asnDetails").queryAs(Label.class).getText()).contains("127.0.0.0/24");

        // its one action, by the keyboard's reach of a button (focus, Space), audited by the server
        robot.clickOn("#challengeAsn");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> server.engine().policy().browserCheck()
                .alwaysChallengeAsns().equals(List.of(64500L)));
        assertThat(server.state().audit().newestFirst(1).get(0).detail()).isEqualTo("challenge AS64500");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> !table.getItems().isEmpty()
                && "CHECKED".equals(((AsnViewModel.Row) table.getItems().get(0)).status()));
        String shots = System.getProperty("sluice.screenshots");
        if (shots != null) { // -Dsluice.screenshots=DIR: the room as the test left it, to look at
            Path file = Path.of(shots, "console-networks-asn.png");
            robot.interact(() -> Screenshot.save(stage.getScene(), file));
        }
        robot.clickOn("#stopChallengingAsn");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> server.engine().policy().browserCheck()
                .alwaysChallengeAsns().isEmpty());
    }
}
