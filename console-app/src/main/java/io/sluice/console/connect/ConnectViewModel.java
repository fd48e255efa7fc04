package io.sluice.console.connect;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.api.CertificatePins;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The connect room: pick a remembered server (the last one used is preselected) or fill in a new one (name, URL,
 * token name and secret), and connect. Connecting asks the server for a snapshot first, so a wrong token, an
 * unreachable server or a changed certificate is said here, before any room opens; a connection that worked is
 * remembered. No toolkit needed.
 */
public final class ConnectViewModel {
    private final ServerBook book;
    private final UiExecutor ui;
    private final Clock clock;
    private final String operator;
    private final Consumer<Session> onConnected;
    private final ObservableList<KnownServer> servers = FXCollections.observableArrayList();
    private final ObservableList<KnownServer> serversView = FXCollections.unmodifiableObservableList(servers);
    private final ObjectProperty<KnownServer> chosen = new SimpleObjectProperty<>();
    private final StringProperty name = new SimpleStringProperty("");
    private final StringProperty url = new SimpleStringProperty("https://127.0.0.1:9090/");
    private final StringProperty tokenName = new SimpleStringProperty("admin");
    private final StringProperty token = new SimpleStringProperty("");
    private final BooleanProperty remember = new SimpleBooleanProperty(true);
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper certificateChanged = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper firstPin = new ReadOnlyStringWrapper("");
    private final Command connect;
    private final Command forget;

    /**
     * @param operator    the person's name, sent as {@code X-Sluice-Operator} with every change
     * @param onConnected given the session once the server answered, on the UI thread
     */
    public ConnectViewModel(ServerBook book, UiExecutor ui, Clock clock, String operator,
                            Consumer<Session> onConnected) {
        this.book = book;
        this.ui = ui;
        this.clock = clock;
        this.operator = operator;
        this.onConnected = onConnected;
        chosen.addListener((o, was, server) -> {
            if (server != null) {
                name.set(server.name());
                url.set(server.url());
                tokenName.set(server.tokenName());
                token.set("");
            }
        });
        this.connect = Command.admin(ui, new SimpleBooleanProperty(true), this::prepareConnect, this::connected,
                this::failed);
        this.forget = Command.local(chosen.isNotNull(), this::forgetChosen);
        load();
    }

    private void load() {
        try {
            servers.setAll(book.servers());
            book.last().ifPresent(chosen::set);
        } catch (IOException | RuntimeException e) {
            status.set("Cannot read the remembered servers in " + book.directory() + ": " + e.getMessage());
        }
    }

    /** What {@link #connect()} needs, read from the form; a problem with it is said before anything is sent. */
    private record Target(KnownServer server, String secret, boolean rememberIt) {
    }

    private UiExecutor.Work<Session> prepareConnect() {
        certificateChanged.set(false);
        Target target = target();
        status.set("Connecting to " + target.server().url() + "…");
        return () -> {
            AdminClient client = client(target.server(), target.secret());
            client.snapshot();
            if (target.rememberIt()) {
                try {
                    book.remember(target.server(), target.server().tokenFile() == null ? target.secret() : null);
                } catch (IOException e) {
                    throw new AdminException(AdminException.Kind.PROTOCOL, "connected, but cannot remember the "
                            + "server in " + book.directory() + ": " + e.getMessage());
                }
            }
            return new Session(target.server().name(), target.server().tokenName(), client, ui, clock);
        };
    }

    private Target target() {
        URI address = address(url.get());
        String label = name.get() == null || name.get().isBlank() ? address.getHost() + ":" + port(address)
                : name.get().strip();
        String who = tokenName.get() == null || tokenName.get().isBlank() ? "admin" : tokenName.get().strip();
        KnownServer previous = chosen.get() != null && chosen.get().name().equals(label) ? chosen.get() : null;
        String typed = token.get() == null ? "" : token.get().strip();
        String tokenFile = typed.isEmpty() && previous != null ? previous.tokenFile() : null;
        KnownServer server = new KnownServer(label, address.toString(), who, tokenFile);
        String secret = typed;
        if (secret.isEmpty()) {
            try {
                secret = previous == null ? "" : book.secret(previous).orElse("");
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the token of " + label + ": " + e.getMessage());
            }
        }
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("paste the token (on the server: the state directory's admin-token, "
                    + "or one made with 'sluice-server token add NAME --role admin')");
        }
        return new Target(server, secret, remember.get());
    }

    /** The admin URL as typed, checked: http or https, a host, nothing else. */
    static URI address(String text) {
        try {
            URI uri = new URI(text == null ? "" : text.strip());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
                throw new IllegalArgumentException("the admin URL is https://HOST:PORT/ (http:// only on loopback), "
                        + "was '" + text + "'");
            }
            return uri.getPath() == null || uri.getPath().isEmpty() ? uri.resolve("/") : uri;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + e.getMessage());
        }
    }

    private static int port(URI uri) {
        return uri.getPort() >= 0 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private AdminClient client(KnownServer server, String secret) throws AdminException {
        CertificatePins pins;
        try {
            pins = CertificatePins.inFile(book.pinsFile());
        } catch (IllegalStateException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, e.getMessage());
        }
        return new AdminClient(URI.create(server.url()), secret, operator, pins, (where, fingerprint) ->
                ui.onUiThread(() -> firstPin.set("First connection to " + where + ": its self-signed certificate is "
                        + "now pinned.\n\nSHA-256 " + fingerprint + "\n\nCompare it with what the server printed at "
                        + "start (or with 'sluice-server tls fingerprint'). A different certificate will be refused "
                        + "from now on.")));
    }

    /** Connects to {@code server} with {@code secret} at once, without the form (the command line's way). */
    public void connect(KnownServer server, String secret, boolean rememberIt) {
        certificateChanged.set(false);
        status.set("Connecting to " + server.url() + "…");
        ui.run(() -> {
            AdminClient client = client(server, secret);
            client.snapshot();
            if (rememberIt) {
                try {
                    book.remember(server, server.tokenFile() == null ? secret : null);
                } catch (IOException e) {
                    throw new AdminException(AdminException.Kind.PROTOCOL, "cannot remember " + server.name()
                            + ": " + e.getMessage());
                }
            }
            return new Session(server.name(), server.tokenName(), client, ui, clock);
        }, this::connected, this::failed);
    }

    private void connected(Session session) {
        status.set("");
        load();
        onConnected.accept(session);
    }

    private void failed(AdminException why) {
        boolean changed = why.kind() == AdminException.Kind.CERTIFICATE_CHANGED;
        certificateChanged.set(changed);
        status.set(changed ? "REFUSED: " + why.getMessage() : "Not connected: " + why.getMessage());
    }

    private void forgetChosen() {
        KnownServer server = chosen.get();
        try {
            book.forget(server.name());
            chosen.set(null);
            servers.setAll(book.servers());
            status.set("Forgot " + server.name());
        } catch (IOException e) {
            status.set("Cannot forget " + server.name() + ": " + e.getMessage());
        }
    }

    public ObservableList<KnownServer> servers() {
        return serversView;
    }

    /** The remembered server picked; fills the form. */
    public ObjectProperty<KnownServer> chosenProperty() {
        return chosen;
    }

    public StringProperty nameProperty() {
        return name;
    }

    public StringProperty urlProperty() {
        return url;
    }

    public StringProperty tokenNameProperty() {
        return tokenName;
    }

    /** The token's secret, pasted; empty keeps the remembered one. */
    public StringProperty tokenProperty() {
        return token;
    }

    public BooleanProperty rememberProperty() {
        return remember;
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** The last attempt was refused because the server's certificate is not the one pinned for it. */
    public ReadOnlyBooleanProperty certificateChangedProperty() {
        return certificateChanged.getReadOnlyProperty();
    }

    /** Set when a certificate was pinned for the first time: what to tell the operator. */
    public ReadOnlyStringProperty firstPinProperty() {
        return firstPin.getReadOnlyProperty();
    }

    public Command connect() {
        return connect;
    }

    public Command forget() {
        return forget;
    }

    /** The names of the remembered servers (for tests and the command line's error message). */
    public List<String> names() {
        return servers.stream().map(KnownServer::name).toList();
    }
}
