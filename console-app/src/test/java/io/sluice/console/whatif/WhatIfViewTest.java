package io.sluice.console.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.Policy;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.Button;
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
 * The what-if panel in a real window against a real front end: Preview installs, Stop removes; a client the edit
 * would refuse is named while the live policy serves it, and Apply makes the edit live.
 */
@ExtendWith(ApplicationExtension.class)
class WhatIfViewTest {
    private static final String COPIER = "SiteCopierUnderTest/1.0";
    private SluiceServer server;
    private AdminClient client;
    private FxUiExecutor ui;
    private Session session;
    private WhatIfView view;

    @Start
    void start(Stage stage) throws Exception {
        server = Demo.start(ServerConfig.demo(Files.createTempDirectory("sluice-whatif")));
        client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
        ui = new FxUiExecutor();
        session = new Session("test", "admin", client, ui, Clock.systemUTC());
        Policy live = client.policy();
        Policy edited = live.withHitStack(new Policy.HitStack(live.hitStack().windowSeconds(), 4));
        view = new WhatIfView(session, () -> edited);
        stage.setScene(new Scene(view.view(), 900, 600));
        stage.show();
    }

    @AfterEach
    void stop() {
        session.close();
        ui.close();
        server.close();
    }

    @Test
    void previewInstallsTheEditAsTheShadowAndStopRemovesIt(FxRobot robot) throws Exception {
        assertThat(robot.lookup("Apply").queryAs(Button.class).isDisabled()).isTrue();

        robot.clickOn("Preview");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> !robot.lookup("Apply").queryAs(Button.class)
                .isDisabled());
        assertThat(robot.lookup(".whatif-headline").queryAs(Label.class).getText())
                .isEqualTo("No request yet since the preview started");
        assertThat(client.shadow(1)).hasValueSatisfying(s -> assertThat(s.policy().hitStack().maxHits()).isEqualTo(4));

        robot.clickOn("Stop preview");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> client.shadow(1).isEmpty());
        assertThat(robot.lookup(".whatif-status").queryAs(Label.class).getText()).isEqualTo("Preview stopped");
    }

    @Test
    void thePreviewNamesTheClientTheEditWouldRefuseAndApplyMakesItLive(FxRobot robot) throws Exception {
        robot.clickOn("Preview");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> !robot.lookup("Apply").queryAs(Button.class)
                .isDisabled());
        HttpClient http = HttpClient.newHttpClient();
        for (int i = 0; i < 6; i++) { // the live policy serves all six; the edit (4 hits) would refuse two
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(server.frontUri().resolve("/page/" + i))
                    .header("User-Agent", COPIER).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(response.statusCode()).isEqualTo(200);
        }

        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> copierRow(robot) != null);
        assertThat(copierRow(robot).refused()).isEqualTo(2);

        robot.clickOn("Apply");
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> client.policy().hitStack().maxHits() == 4);
        assertThat(client.shadow(1)).as("promoted: no shadow left").isEmpty();
        assertThat(client.audit(50)).anySatisfy(entry -> assertThat(entry.path("action").asText())
                .isEqualTo("policy.promote"));
    }

    /** The copier's row in the panel's table of clients the edit would refuse, or null. */
    private static WhatIfSummary.ClientRow copierRow(FxRobot robot) {
        TableView<?> clients = robot.lookup("#clients").queryAs(TableView.class);
        for (Object item : List.copyOf(clients.getItems())) {
            if (item instanceof WhatIfSummary.ClientRow row && COPIER.equals(row.userAgent())) {
                return row;
            }
        }
        return null;
    }
}
