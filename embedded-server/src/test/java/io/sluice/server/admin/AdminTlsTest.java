package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.AdminOptions;
import io.sluice.server.HostPort;
import io.sluice.server.Main;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import io.sluice.server.tls.AdminTls;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The admin listener over real HTTPS on loopback, with the certificate Sluice makes at first start. */
class AdminTlsTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private SluiceServer server;

    static ServerConfig tls(Path state) {
        return ServerConfig.demo(state).withAdminOptions(AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED));
    }

    @Test
    void aSelfSignedCertificateIsMadeAtFirstStartKeptOwnerOnlyAndServedOverHttps() throws Exception {
        server = servers.start(tls(state));

        assertThat(server.adminUri().getScheme()).isEqualTo("https");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(AdminTls.KEY_FILE))))
                .isEqualTo("rw-------");
        X509Certificate certificate = server.adminCertificate().certificate();
        assertThat(certificate.getSubjectAlternativeNames()).extracting(name -> name.get(1).toString())
                .contains("localhost", "127.0.0.1");
        HttpResponse<String> snapshot = new Https(server).call("GET", "/api/v1/snapshot", null, server.adminToken());
        assertThat(snapshot.statusCode()).isEqualTo(200);
        assertThat(snapshot.body()).contains("\"topClients\"");
    }

    @Test
    void theFingerprintIsTheSameAfterARestartAndFromTheCli() throws Exception {
        server = servers.start(tls(state));
        String fingerprint = server.adminCertificate().fingerprint();
        servers.stop(server);
        server = servers.start(tls(state));

        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out, true));
        int exit = cli.execute("tls", "fingerprint", "--state", state.toString());

        assertThat(server.adminCertificate().fingerprint()).isEqualTo(fingerprint)
                .matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
        assertThat(exit).isZero();
        assertThat(out.toString().trim()).isEqualTo("SHA-256 " + fingerprint);
    }

    @Test
    void aClientThatPinnedAnotherCertificateCannotConnect(@TempDir Path otherState) throws Exception {
        server = servers.start(tls(state));
        SluiceServer impostor = servers.start(tls(otherState));
        X509Certificate other = impostor.adminCertificate().certificate();
        servers.stop(impostor);

        Https pinnedToTheOther = new Https(server.adminUri(), other);

        assertThatThrownBy(() -> pinnedToTheOther.call("GET", "/api/v1/snapshot", null, server.adminToken()))
                .isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void aNonLoopbackAdminAddressWithoutTlsRefusesToStartUnlessTheOperatorInsists() throws Exception {
        ServerConfig exposed = new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("0.0.0.0", 0),
                state, null, true, false, null, null, null);

        assertThatThrownBy(() -> servers.start(exposed)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without TLS").hasMessageContaining("--admin-tls");

        AdminOptions insecure = new AdminOptions(false, AdminTls.Settings.SELF_SIGNED, true, Set.of(),
                AdminOptions.DEFAULTS.auditMaxBytes(), AdminOptions.DEFAULTS.auditKeep());
        server = servers.start(exposed.withAdminOptions(insecure));
        assertThat(server.adminUri().getScheme()).isEqualTo("http");
    }
}
