package io.sluice.console.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.engine.policy.Policy;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import java.nio.file.Files;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The what-if panel in a real window against a real front end: Preview installs, Stop removes. */
@ExtendWith(ApplicationExtension.class)
class WhatIfViewTest {
    private SluiceServer server;
    private AdminClient client;
    private ExecutorService background;
    private WhatIfView view;

    @Start
    void start(Stage stage) throws Exception {
        server = SluiceServer.start(ServerConfig.demo(Files.createTempDirectory("sluice-whatif")));
        client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
        background = Executors.newSingleThreadExecutor();
        Policy live = client.policy();
        Policy edited = live.withHitStack(new Policy.HitStack(live.hitStack().windowSeconds(), 4));
        view = WhatIfView.load(new WhatIfViewModel(client, Platform::runLater, background), () -> edited);
        stage.setScene(new Scene(view.root(), 900, 600));
        stage.show();
    }

    @AfterEach
    void stop() {
        background.shutdownNow();
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
}
