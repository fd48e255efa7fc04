package io.sluice.console.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.CertificatePin;
import io.sluice.console.api.CertificatePins;
import io.sluice.console.api.OfferedCertificate;
import io.sluice.console.testkit.RogueTlsServer;
import io.sluice.console.testkit.TestCertificates;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.server.AdminOptions;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import io.sluice.server.tls.AdminTls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Connecting, without the toolkit, to real servers. */
class ConnectViewModelTest {
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    @TempDir
    Path config;
    @TempDir
    Path state;

    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final List<Session> sessions = new ArrayList<>();

    private ConnectViewModel model() {
        return new ConnectViewModel(new ServerBook(config), ui, Clock.systemUTC(), "tester", sessions::add);
    }

    @Test
    void aServerThatAnsweredIsRememberedAndChosenNextTimeWithItsToken() throws Exception {
        try (SluiceServer server = Demo.start(ServerConfig.demo(state))) {
            ConnectViewModel first = model();
            first.nameProperty().set("local");
            first.urlProperty().set(server.adminUri().toString());
            first.tokenProperty().set(server.adminToken());

            first.connect().execute();

            assertThat(sessions).singleElement().satisfies(s -> {
                assertThat(s.serverName()).isEqualTo("local");
                assertThat(s.tokenName()).isEqualTo("admin");
            });
            ConnectViewModel next = model();
            assertThat(next.chosenProperty().get().name()).isEqualTo("local");
            assertThat(next.tokenProperty().get()).as("the secret is never shown again").isEmpty();
            next.connect().execute();
            assertThat(sessions).hasSize(2);
            assertThat(sessions.get(1).client().snapshot().policyVersion()).isEqualTo(1);
        }
    }

    @Test
    void aWrongTokenIsSaidAndNothingIsRemembered() throws Exception {
        try (SluiceServer server = Demo.start(ServerConfig.demo(state))) {
            ConnectViewModel model = model();
            model.urlProperty().set(server.adminUri().toString());
            model.tokenProperty().set("not-the-token");

            model.connect().execute();

            assertThat(sessions).isEmpty();
            assertThat(model.statusProperty().get()).isEqualTo("Not connected: the server refused the token");
            assertThat(new ServerBook(config).servers()).isEmpty();
        }
    }

    @Test
    void aBadUrlOrNoTokenIsSaidBeforeAnythingIsSent() {
        ConnectViewModel model = model();
        model.urlProperty().set("ftp://ops.example/");
        model.tokenProperty().set("x");
        model.connect().execute();
        assertThat(model.statusProperty().get()).startsWith("Not connected: the admin URL is https://HOST:PORT/");

        model.urlProperty().set("https://ops.example:9090/");
        model.tokenProperty().set("");
        model.connect().execute();
        assertThat(model.statusProperty().get()).startsWith("Not connected: paste the token");
        assertThat(sessions).isEmpty();
    }

    @Test
    void plainHttpToAnotherMachineIsRefusedBeforeAnythingIsSent() {
        ConnectViewModel model = model();
        model.urlProperty().set("http://192.0.2.1:9090/");
        model.tokenProperty().set("the-secret-token");

        model.connect().execute();

        assertThat(model.statusProperty().get()).startsWith("Not connected: refused: http://192.0.2.1 would send "
                + "the token in clear text");
        assertThat(sessions).isEmpty();
        assertThat(config).isEmptyDirectory();
    }

    @Test
    void anUnknownCertificateIsOfferedWithNothingSentAndRefusingItKeepsNothing() throws Exception {
        try (RogueTlsServer rogue = new RogueTlsServer(TestCertificates.selfSigned("127.0.0.1"))) {
            ConnectViewModel model = model();
            model.urlProperty().set(rogue.uri().toString());
            model.tokenProperty().set("the-secret-token");

            model.connect().execute();

            OfferedCertificate offered = model.offeredProperty().get();
            assertThat(offered).isNotNull();
            assertThat(model.statusProperty().get()).contains("Nothing was sent");
            assertThat(model.trustQuestionProperty().get()).contains(offered.pin().toString(),
                    "127.0.0.1:" + rogue.port());
            assertThat(model.trust().executableProperty().get()).isTrue();
            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.received()).as("no request, no token before the operator decides").isEmpty();

            model.distrust().execute();

            assertThat(model.offeredProperty().get()).isNull();
            assertThat(model.trust().executableProperty().get()).isFalse();
            assertThat(model.statusProperty().get()).startsWith("Not connected: you did not trust the certificate")
                    .contains("nothing was kept");
            assertThat(config).as("no pin, no server remembered").isEmptyDirectory();
            assertThat(sessions).isEmpty();
            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.received()).isEmpty();
        }
    }

    @Test
    void overHttpsACertificateTrustedByTheOperatorIsPinnedAndAChangedOneIsRefusedUnmistakably(@TempDir Path other)
            throws Exception {
        ServerConfig tls = ServerConfig.demo(state).withAdminOptions(
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED));
        String fingerprint;
        int port;
        try (SluiceServer server = Demo.start(tls)) {
            fingerprint = server.adminCertificate().fingerprint();
            port = server.adminUri().getPort();
            ConnectViewModel model = model();
            model.nameProperty().set("ops");
            model.urlProperty().set(server.adminUri().toString());
            model.tokenProperty().set(server.adminToken());

            model.connect().execute();

            assertThat(sessions).isEmpty();
            assertThat(model.offeredProperty().get().pin().fingerprint()).isEqualTo(fingerprint);
            assertThat(config.resolve("known-servers.json")).doesNotExist();

            model.trust().execute();

            assertThat(sessions).hasSize(1);
            assertThat(model.offeredProperty().get()).isNull();
            assertThat(Files.readString(config.resolve("known-servers.json"))).contains("127.0.0.1:" + port,
                    fingerprint);
            ConnectViewModel again = model();
            again.connect().execute();
            assertThat(sessions).as("pinned: no question the second time").hasSize(2);
            assertThat(again.offeredProperty().get()).isNull();
        }
        // Another server with another certificate answers at the same address.
        try (SluiceServer impostor = Demo.start(new ServerConfig(new HostPort("127.0.0.1", 0), null,
                new HostPort("127.0.0.1", port), other, null, true, false, null, null, null,
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED), null, null))) {
            ConnectViewModel model = model();
            model.tokenProperty().set(impostor.adminToken());

            model.connect().execute();

            assertThat(sessions).hasSize(2);
            assertThat(model.offeredProperty().get()).as("nothing to click through").isNull();
            assertThat(model.certificateChangedProperty().get()).isTrue();
            assertThat(model.statusProperty().get()).startsWith("REFUSED: THE CERTIFICATE OF 127.0.0.1:" + port
                    + " CHANGED").contains(fingerprint, "Nothing was sent");
        }
    }

    @Test
    void theRightPinConnectsWithoutAQuestionAndIsKeptAWrongOneSendsNothing() throws Exception {
        try (SluiceServer server = Demo.start(ServerConfig.demo(state).withAdminOptions(
                AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED)));
             RogueTlsServer rogue = new RogueTlsServer(TestCertificates.selfSigned("127.0.0.1"))) {
            CertificatePin pin = CertificatePin.parse(server.adminCertificate().pin());
            ConnectViewModel model = model();

            model.connect(new KnownServer("rogue", rogue.uri().toString(), "admin", null), "the-secret-token", false,
                    pin);

            assertThat(model.offeredProperty().get()).isNull();
            assertThat(model.statusProperty().get()).startsWith("REFUSED: THE CERTIFICATE OF");
            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.received()).isEmpty();
            assertThat(config).isEmptyDirectory();

            model.connect(new KnownServer("ops", server.adminUri().toString(), "admin", null), server.adminToken(),
                    false, pin);

            assertThat(sessions).hasSize(1);
            assertThat(model.offeredProperty().get()).isNull();
            assertThat(CertificatePins.inFile(config.resolve("known-servers.json"))
                    .pinned("127.0.0.1:" + server.adminUri().getPort())).contains(pin);
        }
    }
}
