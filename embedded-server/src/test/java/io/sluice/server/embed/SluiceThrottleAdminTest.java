package io.sluice.server.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.ConnectionLimits;
import io.sluice.server.admin.AdminConnections;
import io.sluice.server.tls.AdminCertificate;
import io.sluice.server.tls.AdminTls;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Embedded mode's admin listener: no plain HTTP off loopback, HTTPS on request, the front end's limits. */
class SluiceThrottleAdminTest {
    @TempDir
    Path dir;

    private SluiceThrottle sluice;

    @AfterEach
    void stop() throws Exception {
        if (sluice != null) {
            sluice.stop();
        }
    }

    @Test
    void plainHttpOnAnAddressOtherThanLoopbackIsRefusedBeforeAnythingIsOpened() {
        Path state = dir.resolve("state");

        assertThatThrownBy(() -> SluiceThrottle.builder().stateDirectory(state).admin("0.0.0.0", 0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0.0.0.0:0")
                .hasMessageContaining("clear text").hasMessageContaining("adminTls");
        assertThat(state).as("nothing created").doesNotExist();
    }

    @Test
    void overTlsTheAdminApiAnswersOnlyOverHttpsWithTheCertificateWhosePinItGives() throws Exception {
        sluice = SluiceThrottle.builder().stateDirectory(dir.resolve("state")).admin("127.0.0.1", 0)
                .adminTls(AdminTls.Settings.SELF_SIGNED).build();
        sluice.start();

        AdminCertificate certificate = sluice.adminCertificate();
        assertThat(sluice.adminUri().getScheme()).isEqualTo("https");
        assertThat(certificate.pin()).isEqualTo("SHA256:" + AdminCertificate.fingerprint(certificate.certificate()));
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("admin", certificate.certificate());
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, factory.getTrustManagers(), null);
        HttpResponse<String> snapshot = HttpClient.newBuilder().sslContext(tls).build().send(
                HttpRequest.newBuilder(sluice.adminUri().resolve("/api/v1/snapshot")).timeout(Duration.ofSeconds(20))
                        .header("Authorization", "Bearer " + sluice.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(snapshot.statusCode()).isEqualTo(200);
    }

    @Test
    void anAddressOtherThanLoopbackIsAllowedOverTls() throws Exception {
        sluice = SluiceThrottle.builder().stateDirectory(dir.resolve("state")).admin("0.0.0.0", 0)
                .adminTls(AdminTls.Settings.SELF_SIGNED).build();
        sluice.start();

        assertThat(sluice.adminUri().getScheme()).isEqualTo("https");
    }

    @Test
    void theAdminListenerHasTheFrontEndsLimits() throws Exception {
        sluice = SluiceThrottle.builder().stateDirectory(dir.resolve("state")).admin("127.0.0.1", 0).build();

        Server admin = sluice.getBean(Server.class);
        ServerConnector connector = (ServerConnector) admin.getConnectors()[0];
        assertThat(connector.getBean(AdminConnections.class)).as("a connection limit").isNotNull()
                .extracting(AdminConnections::maxConnections)
                .isEqualTo(ConnectionLimits.DEFAULTS.adminMaxConnections());
        assertThat(connector.getIdleTimeout()).as("idle connections are closed").isEqualTo(30_000);
        assertThat(admin.getThreadPool()).isNotNull();
    }
}
