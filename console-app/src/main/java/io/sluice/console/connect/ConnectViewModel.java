package io.sluice.console.connect;

import io.sluice.console.api.AdminAddress;
import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.api.CertificatePin;
import io.sluice.console.api.CertificatePins;
import io.sluice.console.api.OfferedCertificate;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
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
 * remembered. A server whose certificate nobody vouches for (self-signed, not pinned) gets nothing, not even a
 * request: its certificate is offered to the operator ({@link #offeredProperty()}), who trusts it (its pin is
 * kept, then the console connects) or refuses it (nothing is kept). No toolkit needed.
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
    private final ReadOnlyObjectWrapper<OfferedCertificate> offered = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper trustQuestion = new ReadOnlyStringWrapper("");
    private final Command connect;
    private final Command forget;
    private final Command trust;
    private final Command distrust;
    /** The connection made last (set on the UI thread as it starts), which a certificate may be offered for. */
    private Attempt current;
    /** The connection waiting for the operator's decision on {@link #offered}. */
    private Attempt waiting;

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
        this.connect = Command.admin(ui, new SimpleBooleanProperty(true), () -> start(target()), this::connected,
                this::failed);
        this.forget = Command.local(chosen.isNotNull(), this::forgetChosen);
        this.trust = Command.admin(ui, offered.isNotNull(), this::trustOffered, this::connected, this::failed);
        this.distrust = Command.local(offered.isNotNull(), this::distrustOffered);
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

    /**
     * One connection to make: checked before anything is sent.
     *
     * @param pin the certificate to trust (given with {@code --pin}, or accepted), or null for the kept pin
     */
    private record Attempt(KnownServer server, URI address, String secret, boolean rememberIt, CertificatePin pin) {
    }

    private Attempt target() {
        URI address = address(url.get());
        String label = name.get() == null || name.get().isBlank() ? AdminAddress.server(address) : name.get().strip();
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
        return new Attempt(server, address, secret, remember.get(), null);
    }

    /** The admin URL as typed, checked ({@link AdminAddress}): https, or http on loopback only. */
    static URI address(String text) {
        return AdminAddress.parse(text);
    }

    /** Clears the last outcome and returns the connection's work. */
    private UiExecutor.Work<Session> start(Attempt attempt) {
        certificateChanged.set(false);
        offer(null, null);
        current = attempt;
        status.set("Connecting to " + attempt.server().url() + "…");
        return () -> open(attempt);
    }

    /** Off the UI thread: the snapshot with the trust decided, then the server remembered. */
    private Session open(Attempt attempt) throws AdminException {
        String where = AdminAddress.server(attempt.address());
        boolean https = "https".equalsIgnoreCase(attempt.address().getScheme());
        CertificatePins pins = pins();
        CertificatePin pin = !https ? null : attempt.pin() != null ? attempt.pin() : pins.pinned(where).orElse(null);
        AdminClient client;
        try {
            client = new AdminClient(attempt.address(), attempt.secret(), operator, pin);
        } catch (IllegalArgumentException e) {
            throw new AdminException(AdminException.Kind.REJECTED, e.getMessage());
        }
        client.snapshot();
        try {
            if (attempt.pin() != null && https) {
                // The certificate matched the pin the operator gave: kept, so the next connection needs no --pin.
                pins.pin(where, attempt.pin());
            }
            if (attempt.rememberIt()) {
                book.remember(attempt.server(), attempt.server().tokenFile() == null ? attempt.secret() : null);
            }
        } catch (IOException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, "connected, but cannot remember "
                    + attempt.server().name() + " in " + book.directory() + ": " + e.getMessage());
        }
        return new Session(attempt.server().name(), attempt.server().tokenName(), client, ui, clock);
    }

    private CertificatePins pins() throws AdminException {
        try {
            return CertificatePins.inFile(book.pinsFile());
        } catch (IllegalStateException e) {
            throw new AdminException(AdminException.Kind.PROTOCOL, e.getMessage());
        }
    }

    /** Connects to {@code server} with {@code secret} at once, without the form (the command line's way). */
    public void connect(KnownServer server, String secret, boolean rememberIt) {
        connect(server, secret, rememberIt, null);
    }

    /**
     * Connects to {@code server} at once, trusting exactly the certificate {@code pin} names (the command line's
     * {@code --pin}; null for the kept pin or an authority's signature).
     */
    public void connect(KnownServer server, String secret, boolean rememberIt, CertificatePin pin) {
        UiExecutor.Work<Session> work;
        try {
            work = start(new Attempt(server, address(server.url()), secret, rememberIt, pin));
        } catch (IllegalArgumentException e) {
            failed(new AdminException(AdminException.Kind.REJECTED, e.getMessage()));
            return;
        }
        ui.run(work, this::connected, this::failed);
    }

    /** The operator compared the fingerprint and trusts it: the pin is kept, then the same connection is made. */
    private UiExecutor.Work<Session> trustOffered() {
        OfferedCertificate certificate = offered.get();
        Attempt trusted = new Attempt(waiting.server(), waiting.address(), waiting.secret(), waiting.rememberIt(),
                certificate.pin());
        UiExecutor.Work<Session> connecting = start(trusted);
        return () -> {
            try {
                pins().pin(certificate.server(), certificate.pin());
            } catch (IOException e) {
                throw new AdminException(AdminException.Kind.PROTOCOL, "cannot keep the pin of "
                        + certificate.server() + " in " + book.pinsFile() + ": " + e.getMessage());
            }
            return connecting.call();
        };
    }

    /** The operator does not trust the certificate: nothing was sent, nothing is kept. */
    private void distrustOffered() {
        OfferedCertificate certificate = offered.get();
        offer(null, null);
        status.set("Not connected: you did not trust the certificate of " + certificate.server() + " ("
                + certificate.pin() + "). Nothing was sent to it and nothing was kept.");
    }

    private void connected(Session session) {
        status.set("");
        load();
        onConnected.accept(session);
    }

    private void failed(AdminException why) {
        boolean changed = why.kind() == AdminException.Kind.CERTIFICATE_CHANGED;
        certificateChanged.set(changed);
        OfferedCertificate certificate = why.offered().orElse(null);
        if (why.kind() == AdminException.Kind.CERTIFICATE_UNKNOWN && certificate != null && current != null
                && certificate.server().equals(AdminAddress.server(current.address()))) {
            offer(certificate, current);
            status.set("First connection to " + certificate.server() + ": its certificate is not signed by an "
                    + "authority this machine trusts. Nothing was sent to it. Compare its fingerprint with the one "
                    + "the server printed at start, then trust it or not.");
            return;
        }
        offer(null, null);
        status.set(changed || why.kind() == AdminException.Kind.CERTIFICATE_WRONG_HOST
                ? "REFUSED: " + why.getMessage() : "Not connected: " + why.getMessage());
    }

    private void offer(OfferedCertificate certificate, Attempt attempt) {
        waiting = attempt;
        offered.set(certificate);
        trustQuestion.set(certificate == null ? "" : question(certificate));
    }

    /** What the operator reads before trusting a certificate. */
    static String question(OfferedCertificate certificate) {
        return "Trust the certificate of " + certificate.server() + "?\n\n"
                + certificate.pin() + "\n\n"
                + (certificate.selfSigned() ? "Self-signed: " + certificate.subject()
                        : "Subject: " + certificate.subject() + "\nIssued by: " + certificate.issuer()) + "\n"
                + "Valid for: " + String.join(", ", certificate.names()) + "\n"
                + "Expires: " + certificate.notAfter() + "\n\n"
                + "The server printed its pin at start (sluice-server: ... --pin SHA256:...), and "
                + "'sluice-server tls fingerprint' prints it too. Trust it only if they are the same: from then on "
                + "this console accepts this certificate only, for " + certificate.server() + ".";
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

    /** A certificate nobody vouches for, offered to the operator; null when none waits for a decision. */
    public ReadOnlyObjectProperty<OfferedCertificate> offeredProperty() {
        return offered.getReadOnlyProperty();
    }

    /** What to ask the operator about {@link #offeredProperty()}: the server, the fingerprint, what to compare. */
    public ReadOnlyStringProperty trustQuestionProperty() {
        return trustQuestion.getReadOnlyProperty();
    }

    /** Trusts the offered certificate (its pin is kept) and connects. */
    public Command trust() {
        return trust;
    }

    /** Refuses the offered certificate: nothing is sent, nothing kept. */
    public Command distrust() {
        return distrust;
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
