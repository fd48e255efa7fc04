package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.connect.KnownServer;
import io.sluice.console.connect.ServerBook;
import io.sluice.server.AdminOptions;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import io.sluice.server.tls.AdminTls;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.application.Application;
import javafx.scene.Node;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

/** The whole console application, as an operator starts it, against real servers. */
class ConsoleAppTest {
    @TempDir
    Path config;
    @TempDir
    Path state;

    private final FxRobot robot = new FxRobot();
    private Application app;

    @BeforeEach
    void toolkit() throws Exception {
        FxToolkit.registerPrimaryStage();
    }

    @AfterEach
    void closeApp() throws Exception {
        if (app != null) {
            FxToolkit.cleanupApplication(app);
        }
    }

    private void launch(String... args) throws Exception {
        if (app != null) {
            FxToolkit.cleanupApplication(app);
        }
        app = FxToolkit.setupApplication(ConsoleApp.class, args);
    }

    @Test
    void theRememberedServersAreOfferedTheLastUsedChosenAndTheOperatorCanSwitch() throws Exception {
        try (SluiceServer server = Demo.start(ServerConfig.demo(state))) {
            ServerBook book = new ServerBook(config);
            book.remember(new KnownServer("elsewhere", "https://192.0.2.1:9090/", "alice", null), "x");
            book.remember(new KnownServer("local", server.adminUri().toString(), "admin", null), server.adminToken());

            launch("--config-dir", config.toString());

            ComboBox<?> known = robot.lookup("#knownServers").queryComboBox();
            assertThat(known.getItems()).hasSize(2);
            assertThat(((KnownServer) known.getValue()).name()).isEqualTo("local");
            robot.clickOn("#connect");
            WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#connectionStatus").tryQuery()
                    .map(l -> ((Label) l).getText().equals("Connected to local as admin")).orElse(false));
            assertThat(robot.lookup("#roomTabs").queryAs(TabPane.class).getTabs())
                    .extracting(Tab::getId)
                    .containsExactly("live", "fleet", "bans", "limits", "domains", "audit");

            robot.clickOn("#switchServer");
            WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> robot.lookup("#knownServers").tryQuery().isPresent());
        }
    }

    @Test
    void overHttpsTheOperatorIsShownTheFingerprintBeforeAnythingIsSentAndAChangedCertificateIsRefusedClearly(
            @TempDir Path other) throws Exception {
        int port;
        String fingerprint;
        try (SluiceServer server = Demo.start(ServerConfig.demo(state).withAdminOptions(
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED)))) {
            port = server.adminUri().getPort();
            fingerprint = server.adminCertificate().fingerprint();

            launch("--url", server.adminUri().toString(), "--token-file", state.resolve("admin-token").toString(),
                    "--remember", "ops", "--config-dir", config.toString());

            WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> robot.lookup("#trustPrompt").tryQuery()
                    .map(Node::isVisible).orElse(false));
            assertThat(robot.lookup("#trustQuestion").queryAs(Label.class).getText()).contains("SHA256:" + fingerprint,
                    "127.0.0.1:" + port);
            assertThat(robot.lookup("#roomTabs").tryQuery()).as("nothing sent, no room").isEmpty();
            assertThat(config.resolve("known-servers.json")).doesNotExist();

            robot.clickOn("#trustCertificate");
            // A connection, then the shell's first layout in software rendering: slow on a busy machine.
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> robot.lookup("#connectionStatus").tryQuery()
                    .map(l -> ((Label) l).getText().equals("Connected to ops as admin")).orElse(false));
            assertThat(config.resolve("known-servers.json")).content().contains(fingerprint);
        }
        // Someone else answers at the same address, with another certificate.
        try (SluiceServer impostor = Demo.start(new ServerConfig(new HostPort("127.0.0.1", 0), null,
                new HostPort("127.0.0.1", port), other, null, true, false, null, null, null,
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED), null, null))) {
            assertThat(impostor.adminUri().getPort()).isEqualTo(port);
            launch("--server", "ops", "--config-dir", config.toString());

            WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> robot.lookup("#connectStatus").tryQuery()
                    .map(l -> l.getStyleClass().contains("certificate-changed")).orElse(false));
            assertThat(robot.lookup("#connectStatus").queryAs(Label.class).getText())
                    .startsWith("REFUSED: THE CERTIFICATE OF 127.0.0.1:" + port + " CHANGED").contains(fingerprint);
            assertThat(robot.lookup("#roomTabs").tryQuery()).as("no room opened").isEmpty();
        }
    }
}
