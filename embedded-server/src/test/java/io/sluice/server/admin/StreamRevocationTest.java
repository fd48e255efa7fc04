package io.sluice.server.admin;

import io.sluice.server.OwnThread;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import io.sluice.server.state.TokenStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An open {@code /api/v1/stream} ends soon after its token is revoked, over real HTTP on loopback. */
class StreamRevocationTest {
    /** Events come once a second: the stream must have ended by the second check after the revocation. */
    private static final long ENDS_WITHIN_MILLIS = 3_000;

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();
    private SluiceServer server;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    @Test
    void aStreamEndsWhenItsTokenIsRevokedThroughTheApi() throws Exception {
        String dashboard = addToken("wallboard");
        Stream stream = open(dashboard);

        long revokedAt = System.nanoTime();
        assertThat(call("DELETE", "tokens/wallboard", server.adminToken()).statusCode()).isEqualTo(204);

        List<String> lines = stream.end.get(ENDS_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - revokedAt)).isLessThan(ENDS_WITHIN_MILLIS);
        assertThat(lines).contains("event: revoked");
    }

    @Test
    void aStreamEndsWhenItsTokenIsRevokedFromAnotherProcess() throws Exception {
        String dashboard = addToken("wallboard");
        Stream stream = open(dashboard);
        Stream other = open(server.adminToken());

        // What the CLI does: another TokenStore on the same directory rewrites tokens.json.
        assertThat(TokenStore.open(state, InstantSource.system()).revoke("wallboard")).isTrue();

        assertThat(stream.end.get(ENDS_WITHIN_MILLIS, TimeUnit.MILLISECONDS)).contains("event: revoked");
        assertThat(other.end).as("a stream of a token still live goes on").isNotDone();
        other.body.close();
    }

    private String addToken(String name) throws Exception {
        HttpResponse<String> added = call("POST", "tokens", server.adminToken(),
                "{\"name\":\"" + name + "\",\"role\":\"read\"}");
        assertThat(added.statusCode()).isEqualTo(201);
        return PolicyJson.mapper().readTree(added.body()).get("token").asText();
    }

    /** Opens a stream, waits for its first event, and reads the rest in the background until it ends. */
    private Stream open(String token) throws Exception {
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(
                server.adminUri().resolve("/api/v1/stream")).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        CountDownLatch first = new CountDownLatch(1);
        CompletableFuture<List<String>> end = CompletableFuture.supplyAsync(() -> {
            List<String> lines = new ArrayList<>();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(),
                    StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    lines.add(line);
                    if (line.startsWith("data: ")) {
                        first.countDown();
                    }
                }
            } catch (IOException closed) {
                lines.add("closed: " + closed);
            }
            return lines;
        }, OwnThread.EACH);
        assertThat(first.await(10, TimeUnit.SECONDS)).as("a first event").isTrue();
        return new Stream(response.body(), end);
    }

    private HttpResponse<String> call(String method, String path, String token) throws Exception {
        return call(method, path, token, null);
    }

    private HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve("/api/v1/" + path))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private record Stream(InputStream body, CompletableFuture<List<String>> end) {
    }
}
