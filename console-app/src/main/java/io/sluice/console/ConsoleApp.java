package io.sluice.console;

import atlantafx.base.theme.PrimerDark;
import io.sluice.console.api.AdminAddress;
import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.api.CertificatePin;
import io.sluice.console.connect.ConnectView;
import io.sluice.console.connect.ConnectViewModel;
import io.sluice.console.connect.KnownServer;
import io.sluice.console.connect.ServerBook;
import io.sluice.console.shell.ShellView;
import io.sluice.console.ui.ConsoleScene;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import javafx.application.Application;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.stage.Stage;
import picocli.CommandLine;

/**
 * The operator's console: the connect room until a server answers, then the shell with the {@link Rooms}.
 * {@code --demo} starts an embedded front end with the demo site and traffic and connects to it (the only place
 * the console touches server code); {@code --url} and {@code --server} connect at once.
 */
public final class ConsoleApp extends Application {
    private final UiExecutor ui = new FxUiExecutor();
    private final Clock clock = Clock.systemUTC();
    private SluiceServer demo;
    private ShellView shell;
    private Stage stage;
    private ServerBook book;

    @Override
    public void start(Stage primary) {
        this.stage = primary;
        setUserAgentStylesheet(new PrimerDark().getUserAgentStylesheet());
        stage.setTitle("Sluice console");
        stage.setScene(ConsoleScene.of(new BorderPane(status("Starting…")), 1400, 900));
        stage.show();
        ConsoleOptions options;
        try {
            options = ConsoleOptions.parse(getParameters().getRaw().toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            stage.getScene().setRoot(new BorderPane(status("Bad command line: " + e.getMessage())));
            return;
        }
        book = new ServerBook(options.configDir() != null ? options.configDir() : ServerBook.defaultDirectory());
        if (options.demo()) {
            startDemo();
            return;
        }
        ConnectViewModel connect = showConnect();
        if (options.url() != null) {
            try {
                String secret = Files.readString(options.tokenFile(), StandardCharsets.UTF_8).trim();
                String name = options.remember() != null ? options.remember() : AdminAddress.server(options.url());
                connect.connect(new KnownServer(name, options.url().toString(), options.tokenName(),
                        options.tokenFile().toAbsolutePath().toString()), secret, options.remember() != null,
                        options.pin());
            } catch (IOException e) {
                stage.getScene().setRoot(new BorderPane(status("Cannot read the token file: " + e.getMessage())));
            }
        } else if (options.server() != null) {
            connectToRemembered(connect, options.server(), options.pin());
        }
    }

    private void connectToRemembered(ConnectViewModel connect, String name, CertificatePin pin) {
        try {
            Optional<KnownServer> server = book.find(name);
            Optional<String> secret = server.isPresent() ? book.secret(server.get()) : Optional.empty();
            if (server.isPresent() && secret.isPresent()) {
                connect.connect(server.get(), secret.get(), true, pin);
            } else {
                stage.getScene().setRoot(new BorderPane(status("No remembered server " + name + " with a token; "
                        + "remembered: " + String.join(", ", connect.names()))));
            }
        } catch (IOException e) {
            stage.getScene().setRoot(new BorderPane(status("Cannot read the remembered servers: " + e.getMessage())));
        }
    }

    private ConnectViewModel showConnect() {
        ConnectViewModel model = new ConnectViewModel(book, ui, clock, System.getProperty("user.name", "console"),
                this::open);
        stage.getScene().setRoot(new ConnectView(model).view());
        return model;
    }

    private void startDemo() {
        stage.getScene().setRoot(new BorderPane(status("Starting the demo: front end, demo site, demo traffic…")));
        ui.run(() -> {
            try {
                Path state = Files.createTempDirectory("sluice-demo-state");
                return Demo.start(ServerConfig.demo(state).withDemoTraffic(true));
            } catch (Exception e) {
                throw new AdminException(AdminException.Kind.UNREACHABLE, "the demo could not start: " + e);
            }
        }, server -> {
            demo = server;
            open(new Session("demo", "admin", new AdminClient(server.adminUri(), server.adminToken(),
                    System.getProperty("user.name", "console")), ui, clock));
        }, failure -> stage.getScene().setRoot(new BorderPane(status(failure.getMessage()))));
    }

    /** The server answered: the shell with every room. */
    private void open(Session session) {
        closeShell();
        shell = new ShellView(session, Rooms.open(Rooms.standard(), session), this::switchServer);
        stage.getScene().setRoot(shell.view());
    }

    private void switchServer() {
        closeShell();
        showConnect();
    }

    private void closeShell() {
        if (shell != null) {
            shell.close();
            shell = null;
        }
    }

    private static Label status(String text) {
        Label status = new Label(text);
        status.setId("startStatus");
        status.setWrapText(true);
        return status;
    }

    /** The shell, once connected (for tests). */
    ShellView shell() {
        return shell;
    }

    @Override
    public void stop() {
        closeShell();
        ui.close();
        if (demo != null) {
            demo.close();
        }
    }
}
