package io.sluice.console;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.CertificatePins;
import io.sluice.console.dashboard.DashboardView;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.PasswordField;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.stage.Stage;

/**
 * The operator's console. {@code --demo} starts an embedded front end with the demo site and traffic and
 * connects to it; {@code --url URL --token-file FILE} connects to a server; with neither, the last server
 * (remembered in the config directory) or a connect form.
 */
public final class ConsoleApp extends Application {
    private SluiceServer demo;
    private DashboardView dashboard;
    private Stage stage;

    @Override
    public void start(Stage primary) throws Exception {
        this.stage = primary;
        setUserAgentStylesheet(new atlantafx.base.theme.PrimerDark().getUserAgentStylesheet());
        stage.setTitle("Sluice console");
        List<String> args = getParameters().getRaw();
        if (args.contains("--demo")) {
            stage.setScene(scene(new BorderPane(status("Starting the demo: front end, demo site, demo traffic…"))));
            stage.show();
            Thread starter = new Thread(() -> {
                try {
                    Path state = Files.createTempDirectory("sluice-demo-state");
                    demo = SluiceServer.start(ServerConfig.demo(state).withDemoTraffic(true));
                    Platform.runLater(() -> connect(demo.adminUri(), demo.adminToken()));
                } catch (Exception e) {
                    Platform.runLater(() -> stage.getScene().setRoot(new BorderPane(status(
                            "The demo could not start: " + e.getMessage()))));
                }
            }, "sluice-demo-start");
            starter.setDaemon(true);
            starter.start();
            return;
        }
        Optional<ConnectionSettings> given = fromArgs(args);
        Optional<ConnectionSettings> known = given.isPresent() ? given
                : ConnectionSettings.load(ConnectionSettings.defaultDirectory());
        stage.setScene(scene(known.isPresent() ? new BorderPane(status("Connecting…")) : connectForm()));
        stage.show();
        known.ifPresent(s -> connect(URI.create(s.url()), s.token()));
    }

    /** Builds the initial, disconnected scene (used by the foundation test). */
    static Scene createScene() {
        return scene(new BorderPane(status("Not connected")));
    }

    private static Label status(String text) {
        Label status = new Label(text);
        status.setId("connectionStatus");
        return status;
    }

    private static Scene scene(BorderPane root) {
        Scene scene = new Scene(root, 1400, 900);
        scene.getStylesheets().add(ConsoleApp.class.getResource("console.css").toExternalForm());
        return scene;
    }

    private static Optional<ConnectionSettings> fromArgs(List<String> args) throws java.io.IOException {
        int url = args.indexOf("--url");
        int tokenFile = args.indexOf("--token-file");
        if (url < 0 || tokenFile < 0 || url + 1 >= args.size() || tokenFile + 1 >= args.size()) {
            return Optional.empty();
        }
        String token = Files.readString(Path.of(args.get(tokenFile + 1))).trim();
        return Optional.of(new ConnectionSettings(args.get(url + 1), token));
    }

    private BorderPane connectForm() {
        TextField url = new TextField("http://127.0.0.1:9090/");
        url.setId("serverUrl");
        PasswordField token = new PasswordField();
        token.setId("token");
        token.setPromptText("paste the content of <state>/admin-token");
        Button connect = new Button("Connect");
        connect.setId("connect");
        connect.setDefaultButton(true);
        Label help = new Label("The token is in the server's state directory, file admin-token.");
        connect.setOnAction(e -> {
            ConnectionSettings settings = new ConnectionSettings(url.getText().trim(), token.getText().trim());
            try {
                settings.save(ConnectionSettings.defaultDirectory());
            } catch (java.io.IOException ex) {
                help.setText("Could not remember the connection: " + ex.getMessage());
            }
            connect(URI.create(settings.url()), settings.token());
        });
        GridPane form = new GridPane();
        form.setHgap(10);
        form.setVgap(10);
        form.setPadding(new Insets(40));
        form.addRow(0, new Label("Server admin URL"), url);
        form.addRow(1, new Label("Token"), token);
        form.add(connect, 1, 2);
        form.add(help, 1, 3);
        return new BorderPane(form);
    }

    private void connect(URI adminUri, String token) {
        if (dashboard != null) {
            dashboard.close();
        }
        CertificatePins pins = CertificatePins.inFile(ConnectionSettings.defaultDirectory().resolve(
                "known-servers.json"));
        dashboard = new DashboardView(new AdminClient(adminUri, token, System.getProperty("user.name", "console"),
                pins, (server, fingerprint) -> Platform.runLater(() -> new Alert(Alert.AlertType.INFORMATION,
                "First connection to " + server + ": its self-signed certificate is now pinned.\n\nSHA-256 "
                + fingerprint + "\n\nCompare it with what the server printed at start (or with "
                + "'sluice-server tls fingerprint'). A different certificate will be refused from now on.")
                .show())));
        stage.getScene().setRoot(dashboard);
    }

    /** The dashboard, once connected (for tests). */
    DashboardView dashboard() {
        return dashboard;
    }

    SluiceServer demoServer() {
        return demo;
    }

    @Override
    public void stop() {
        if (dashboard != null) {
            dashboard.close();
        }
        if (demo != null) {
            demo.close();
        }
    }
}
