package io.sluice.crawl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.botauth.SignedAgentOptions;
import io.sluice.server.demo.Demo;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fleet governed by Sluice identifies itself (docs/manual/signed-agents.md): its Sluice front end publishes the
 * fleet's key directory ({@code --signature-agent-key}), its workers sign their requests with that key
 * ({@link RequestSigner}), and a Sluice front end in front of a site they crawl (here the same one, its loopback
 * directory allowed by the test's configuration) verifies them as the fleet's agent.
 */
class SignedFleetTest {
    private static final String WORKER = "SluiceFleetBot/1.0";

    @TempDir
    Path state;
    @TempDir
    Path keys;

    private SluiceServer sluice;
    private PoliteFetcher fetcher;

    @AfterEach
    void stop() {
        if (fetcher != null) {
            fetcher.close();
        }
        if (sluice != null) {
            sluice.close();
        }
    }

    private Path fleetKey() throws Exception {
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        return Files.writeString(keys.resolve("fleet.pem"), "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(pair.getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n",
                StandardCharsets.US_ASCII);
    }

    private Optional<ClientRow> row() {
        return sluice.engine().snapshot().topClients().stream()
                .filter(r -> WORKER.equals(r.userAgent()) && !r.address()).findFirst();
    }

    @Test
    void aSignedWorkerIsVerifiedAsTheFleetBySluice() throws Exception {
        Path key = fleetKey();
        sluice = Demo.start(ServerConfig.demo(state).withSignedAgents(SignedAgentOptions.DEFAULTS
                .withAllowed(List.of("127.0.0.1/32"), true).withPublishKey(key)));
        URI front = sluice.frontUri();
        RequestSigner signer = RequestSigner.fromPemFile(key, front, Duration.ofMinutes(1), InstantSource.system());
        String token = Files.readString(state.resolve("worker-token")).trim();
        fetcher = new PoliteFetcher(PermitClient.connect(sluice.adminUri(), token),
                SlidingWindowGovernor.started(new SlidingWindowGovernor.Limits(100, Duration.ofSeconds(1), 4, 1_000,
                        Duration.ofMillis(5))),
                new ResponseCache(InstantSource.system(), Duration.ofMinutes(5), List.of(), 1_000),
                HttpClient.newHttpClient(), InstantSource.system(), WORKER, signer);
        // the first request is an unverified claim: Sluice fetches the fleet's directory (from itself) meanwhile
        assertThat(fetcher.fetch(front.resolve("/page/0")).status()).isEqualTo(200);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int page = 1;
        while (row().map(ClientRow::requestClass).orElse(null) != RequestClass.CRAWLER
                && System.nanoTime() < deadline) {
            fetcher.fetch(front.resolve("/page/" + page++));
            Thread.onSpinWait();
        }
        ClientRow row = row().orElseThrow();
        assertThat(row.requestClass()).isEqualTo(RequestClass.CRAWLER);
        assertThat(row.crawlerName()).isEqualTo(front.getHost() + ":" + front.getPort());
    }

    @Test
    void theSignersHeadersCoverWhatTheDraftRequires() throws Exception {
        RequestSigner signer = RequestSigner.fromPemFile(fleetKey(), URI.create("https://fleet.example"),
                Duration.ofSeconds(60), () -> java.time.Instant.parse("2026-12-01T10:00:00Z"));
        Map<String, String> headers = signer.headers("GET", URI.create("https://Site.Example:443/a?b=c"));
        assertThat(headers.get("Signature-Agent")).isEqualTo("sig1=\"https://fleet.example\"");
        assertThat(headers.get("Signature-Input")).startsWith("sig1=(\"@method\" \"@authority\" \"@path\" "
                + "\"signature-agent\";key=\"sig1\");created=1796119200;expires=1796119260;keyid=\"" + signer.keyid()
                + "\";alg=\"ed25519\";nonce=\"").endsWith(";tag=\"web-bot-auth\"");
        assertThat(headers.get("Signature")).matches("sig1=:[A-Za-z0-9+/]{86}==:");
        assertThat(RequestSigner.authority(URI.create("https://Site.Example:443/a"))).isEqualTo("site.example");
        assertThat(RequestSigner.authority(URI.create("http://127.0.0.1:8080/"))).isEqualTo("127.0.0.1:8080");
    }

    @Test
    void aFileWithoutAnEd25519PrivateKeyIsRefused() throws Exception {
        Path notAKey = Files.writeString(keys.resolve("not.pem"), "hello");
        assertThatThrownBy(() -> RequestSigner.fromPemFile(notAKey, URI.create("https://fleet.example"),
                Duration.ofMinutes(1), InstantSource.system())).isInstanceOf(IllegalArgumentException.class);
    }
}
