package io.sluice.console.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.console.testkit.RogueTlsServer;
import io.sluice.console.testkit.TestCertificates;
import io.sluice.server.AdminOptions;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import io.sluice.server.tls.AdminTls;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console sends nothing, not even a request, to a server whose certificate it was not told to trust: tried
 * against rogue TLS servers that record every byte they receive, and against real admin listeners.
 */
class AdminClientTrustTest {
    private static final String TOKEN = "the-secret-token";
    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static TestCertificates.Issued authority;
    private static KeyStore trustingTheAuthority;

    @TempDir
    Path state;
    @TempDir
    Path files;

    @BeforeAll
    static void authority() throws Exception {
        authority = TestCertificates.authority("Sluice test CA");
        trustingTheAuthority = TestCertificates.trusting(authority);
    }

    private static AdminException refusal(AdminClient client) {
        try {
            client.snapshot();
        } catch (AdminException e) {
            return e;
        }
        throw new AssertionError("the call went through");
    }

    @Test
    void anUnknownCertificateGetsNoRequestAndNoTokenAndIsOfferedForTheOperatorToJudge() throws Exception {
        TestCertificates.Issued forged = TestCertificates.selfSigned("127.0.0.1");
        try (RogueTlsServer rogue = new RogueTlsServer(forged)) {
            AdminException refused = refusal(new AdminClient(rogue.uri(), TOKEN, "tester", null,
                    trustingTheAuthority));

            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.connections()).as("it did try the handshake").isPositive();
            assertThat(rogue.received()).as("no HTTP byte, no token").isEmpty();
            assertThat(refused.kind()).isEqualTo(AdminException.Kind.CERTIFICATE_UNKNOWN);
            assertThat(refused.offered()).hasValueSatisfying(offered -> {
                assertThat(offered.server()).isEqualTo("127.0.0.1:" + rogue.port());
                assertThat(offered.pin()).isEqualTo(CertificatePin.of(forged.certificate()));
                assertThat(offered.selfSigned()).isTrue();
                assertThat(offered.names()).containsExactly("127.0.0.1");
            });
        }
    }

    @Test
    void aWrongPinSendsNothingAndSaysTheCertificateChanged() throws Exception {
        TestCertificates.Issued forged = TestCertificates.selfSigned("127.0.0.1");
        CertificatePin trusted = CertificatePin.of(TestCertificates.selfSigned("127.0.0.1").certificate());
        try (RogueTlsServer rogue = new RogueTlsServer(forged)) {
            AdminException refused = refusal(new AdminClient(rogue.uri(), TOKEN, "tester", trusted));

            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.received()).isEmpty();
            assertThat(refused.kind()).isEqualTo(AdminException.Kind.CERTIFICATE_CHANGED);
            assertThat(refused).hasMessageContaining("CHANGED").hasMessageContaining(trusted.toString())
                    .hasMessageContaining(CertificatePin.of(forged.certificate()).toString());
        }
    }

    @Test
    void anAuthoritysCertificateForAnotherNameIsRefusedAndNothingSent() throws Exception {
        try (RogueTlsServer rogue = new RogueTlsServer(TestCertificates.signedBy(authority, "other.example"))) {
            AdminException refused = refusal(new AdminClient(rogue.uri(), TOKEN, "tester", null,
                    trustingTheAuthority));

            rogue.awaitQuiet(PATIENCE);
            assertThat(rogue.received()).isEmpty();
            assertThat(refused.kind()).isEqualTo(AdminException.Kind.CERTIFICATE_WRONG_HOST);
            assertThat(refused.offered()).as("nothing to trust by clicking").isEmpty();
            assertThat(refused).hasMessageContaining("other.example").hasMessageContaining("127.0.0.1:" + rogue.port());
        }
    }

    @Test
    void theRightPinConnectsToARealServer() throws Exception {
        try (SluiceServer server = Demo.start(ServerConfig.demo(state)
                .withAdminOptions(AdminOptions.DEFAULTS.withTls(AdminTls.Settings.SELF_SIGNED)))) {
            CertificatePin pin = CertificatePin.parse(server.adminCertificate().pin());

            assertThat(new AdminClient(server.adminUri(), server.adminToken(), "tester", pin).snapshot()
                    .policyVersion()).isEqualTo(1);
            assertThat(refusal(new AdminClient(server.adminUri(), server.adminToken(), "tester")).kind())
                    .as("without the pin, the same server is unknown")
                    .isEqualTo(AdminException.Kind.CERTIFICATE_UNKNOWN);
        }
    }

    @Test
    void anAuthoritysCertificateForTheHostNeedsNoPinAndAPinStillMeansExactlyThatCertificate() throws Exception {
        Path[] pem = TestCertificates.signedBy(authority, "127.0.0.1", "localhost").writePem(files, "admin");
        try (SluiceServer server = Demo.start(ServerConfig.demo(state).withAdminOptions(
                AdminOptions.DEFAULTS.withTls(new AdminTls.Settings(pem[0], pem[1], null))))) {
            assertThat(new AdminClient(server.adminUri(), server.adminToken(), "tester", null, trustingTheAuthority)
                    .snapshot().policyVersion()).isEqualTo(1);

            CertificatePin other = CertificatePin.of(TestCertificates.selfSigned("127.0.0.1").certificate());
            assertThat(refusal(new AdminClient(server.adminUri(), server.adminToken(), "tester", other,
                    trustingTheAuthority)).kind()).isEqualTo(AdminException.Kind.CERTIFICATE_CHANGED);
        }
    }

    @Test
    void plainHttpIsRefusedForAnythingButLoopbackBeforeAnyConnection() {
        assertThatThrownBy(() -> new AdminClient(URI.create("http://192.0.2.1:9090/"), TOKEN, "tester"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clear text")
                .hasMessageContaining("loopback only");
        assertThatThrownBy(() -> new AdminClient(URI.create("http://ops.example:9090/"), TOKEN, "tester"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new AdminClient(URI.create("http://127.0.0.2:9090/"), TOKEN, "tester").base().getHost())
                .isEqualTo("127.0.0.2");
        assertThat(new AdminClient(URI.create("http://[::1]:9090/"), TOKEN, "tester").base()).isNotNull();
        assertThat(new AdminClient(URI.create("http://localhost:9090"), TOKEN, "tester").base().getPath())
                .isEqualTo("/");
    }

    @Test
    void onlyLiteralLoopbackAddressesAndLocalhostCountAsLoopback() {
        assertThat(AdminAddress.isLoopback("127.0.0.1")).isTrue();
        assertThat(AdminAddress.isLoopback("127.255.0.9")).isTrue();
        assertThat(AdminAddress.isLoopback("[::1]")).isTrue();
        assertThat(AdminAddress.isLoopback("LOCALHOST")).isTrue();
        assertThat(AdminAddress.isLoopback("128.0.0.1")).isFalse();
        assertThat(AdminAddress.isLoopback("127.0.0.256")).isFalse();
        assertThat(AdminAddress.isLoopback("[::2]")).isFalse();
        assertThat(AdminAddress.isLoopback("localhost.evil.example")).isFalse();
        assertThat(AdminAddress.isLoopback("127.0.0.1.nip.io")).as("a name is never looked up").isFalse();
    }

    @Test
    void aPinIsReadInTheFormsOperatorsCopy() {
        String hex = "AB".repeat(32);
        CertificatePin pin = new CertificatePin(hex);
        assertThat(pin.toString()).startsWith("SHA256:AB:AB:").hasSize(7 + 95);
        assertThat(CertificatePin.parse(pin.toString())).isEqualTo(pin);
        assertThat(CertificatePin.parse("sha256:" + hex.toLowerCase())).isEqualTo(pin);
        assertThat(CertificatePin.parse(pin.fingerprint())).isEqualTo(pin);
        assertThat(CertificatePin.parse("SHA256 Fingerprint=" + pin.fingerprint())).isEqualTo(pin);
        assertThatThrownBy(() -> CertificatePin.parse("SHA256:ABCD")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64 hexadecimal digits");
    }
}
