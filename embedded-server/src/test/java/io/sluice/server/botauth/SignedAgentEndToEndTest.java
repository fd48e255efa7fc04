package io.sluice.server.botauth;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.RequestClass;
import io.sluice.engine.SignedMessage;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.CrawlerIdentity;
import io.sluice.server.ForwardingPath;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Web Bot Auth through a real front end (docs/manual/signed-agents.md): an agent's key directory served by Jetty on
 * 127.0.0.1 (loopback allowed by this test's configuration), requests signed with its key. The first signed request
 * is an unverified claim and starts the fetch; once the keys are here, a signed request is a verified {@code CRAWLER}
 * under the directory's name, and the snapshot's row says so. A bad signature is never a 500.
 */
class SignedAgentEndToEndTest {

    private static final String WORKER = "fleet-worker/1.0";

    @RegisterExtension
    final Servers servers = new Servers();
    @TempDir
    Path state;

    /** The agent's own key (RFC 8032's first test seed: anything but the RFC 9421 key, which is refused). */
    private final Signer agent = new Signer(Base64.getDecoder().decode("nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A="));
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private DirectoryServer directory;

    @BeforeEach
    void startDirectory() throws Exception {
        directory = new DirectoryServer(agent.directory());
    }

    @AfterEach
    void stopDirectory() throws Exception {
        directory.close();
    }

    private SluiceServer server(ForwardingPath path, SignedAgentOptions options) throws Exception {
        return servers.start(ServerConfig.demo(state).withFrontPath(path).withSignedAgents(options));
    }

    /** A GET of {@code /} from the worker, signed as its agent (or with {@code tamper} applied to the headers). */
    private HttpResponse<String> get(SluiceServer server, boolean tamper) throws Exception {
        URI front = server.frontUri();
        String authority = front.getHost() + ":" + front.getPort();
        long now = System.currentTimeMillis() / 1000;
        SignedMessage signed = agent.sign(authority, "/", directory.url(""), now - 1, now + 300, null);
        HttpRequest.Builder request = HttpRequest.newBuilder(front).header("User-Agent", WORKER)
                .timeout(Duration.ofSeconds(30));
        for (String name : List.of("signature", "signature-input", "signature-agent")) {
            String value = signed.header(name);
            request.header(name, tamper && name.equals("signature") ? value.replace(":", ":AAAA") : value);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Optional<ClientRow> row(SluiceServer server) {
        return server.engine().snapshot().topClients().stream()
                .filter(r -> WORKER.equals(r.userAgent()) && !r.address()).findFirst();
    }

    @ParameterizedTest
    @EnumSource(ForwardingPath.class)
    void aSignedRequestIsAVerifiedAgentOnceItsDirectoryIsFetched(ForwardingPath path) throws Exception {
        SluiceServer server = server(path, SignedAgentOptions.DEFAULTS.withAllowed(List.of("127.0.0.1/32"), true));
        // the first: an unverified claim (a bot by its address), and the directory is fetched in the background
        assertThat(get(server, false).statusCode()).isEqualTo(200);
        assertThat(row(server).orElseThrow().requestClass()).isEqualTo(RequestClass.BOT);
        await(() -> directory.requests.get() >= 1, "the agent's key directory is fetched");
        await(() -> {
            get(server, false);
            return row(server).orElseThrow().requestClass() == RequestClass.CRAWLER;
        }, "a signed request is a verified agent");
        ClientRow row = row(server).orElseThrow();
        assertThat(row.crawlerName()).isEqualTo(directory.authority());
        assertThat(row.crawlerIdentity()).isEqualTo(CrawlerIdentity.VERIFIED);
        // a tampered signature is not verified, and not an error either
        HttpResponse<String> tampered = get(server, true);
        assertThat(tampered.statusCode()).isLessThan(500);
        assertThat(directory.requests.get()).isEqualTo(1); // cached: one fetch for all these requests
    }

    @Test
    void aDirectoryOnARefusedAddressIsNeverFetchedAndTheClaimStaysABot() throws Exception {
        SluiceServer server = server(ForwardingPath.LEAN, SignedAgentOptions.DEFAULTS.withAllowed(List.of(), true));
        for (int i = 0; i < 3; i++) {
            assertThat(get(server, false).statusCode()).isEqualTo(200);
        }
        assertThat(row(server).orElseThrow().requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(directory.requests.get()).isZero();
    }

    @Test
    void theFrontEndPublishesTheFleetsDirectory() throws Exception {
        Path key = Files.writeString(state.resolveSibling(state.getFileName() + "-fleet.pem"),
                "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n"
                        + "-----END PRIVATE KEY-----\n");
        SluiceServer server = server(ForwardingPath.LEAN, SignedAgentOptions.DEFAULTS.withPublishKey(key));
        HttpResponse<String> published = http.send(HttpRequest.newBuilder(server.frontUri().resolve(
                AgentUrl.WELL_KNOWN)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(published.statusCode()).isEqualTo(200);
        assertThat(published.headers().firstValue("Content-Type")).contains(HttpDirectoryFetcher.MEDIA_TYPE);
        assertThat(KeyDirectory.parse(published.body().getBytes(java.nio.charset.StandardCharsets.UTF_8), true)
                .key(KeyDirectory.RFC9421_TEST_KEY)).isNotNull();
    }
}
