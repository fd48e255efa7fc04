package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fake crawler over real HTTP (docs/manual/classify.md, "Crawler verification"): the operator declares the real
 * Googlebot's address through the admin API (loopback stands in for Google's published ranges), then a copy of its
 * user agent from another loopback address must take nothing from it.
 */
class CrawlerIdentityOverHttpTest {

    private static final String GOOGLEBOT =
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    private static final String REAL = "127.0.0.2";
    private static final String FAKE = "127.0.0.3";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();
    private SluiceServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    @Test
    void aFakeGooglebotFromAnotherAddressTakesNothingFromTheRealOne() throws Exception {
        HttpResponse<String> bad = declareGooglebotAt("10.1.2.3/8");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("crawlers.verifiedRanges.Googlebot[0]", "10.0.0.0/8");
        assertThat(declareGooglebotAt(REAL).statusCode()).isEqualTo(200);

        assertThat(get(FAKE)).as("the fake is served as a bot").isEqualTo(200);
        assertThat(get(REAL)).as("the real one is not held back by the fake").isEqualTo(200);
        assertThat(get(FAKE)).isEqualTo(200);
        assertThat(get(REAL)).as("its own spacing still holds").isEqualTo(503);

        JsonNode snapshot = JSON.readTree(admin("GET", "snapshot", null, null).body());
        Map<String, JsonNode> rows = new HashMap<>();
        snapshot.get("topClients").forEach(row -> {
            if (!row.get("address").asBoolean()) {
                rows.put(row.get("ip").asText(), row);
            }
        });
        assertThat(rows.get(REAL).get("requestClass").asText()).isEqualTo("CRAWLER");
        assertThat(rows.get(REAL).get("crawlerIdentity").asText()).isEqualTo("VERIFIED");
        assertThat(rows.get(FAKE).get("requestClass").asText()).isEqualTo("BOT");
        assertThat(rows.get(FAKE).get("crawlerIdentity").asText()).isEqualTo("CLAIMED");
    }

    /** Replaces the policy with one whose {@code crawlers.verifiedRanges} gives Googlebot {@code block}. */
    private HttpResponse<String> declareGooglebotAt(String block) throws Exception {
        HttpResponse<String> current = admin("GET", "policy", null, null);
        ObjectNode policy = (ObjectNode) JSON.readTree(current.body());
        ((ObjectNode) policy.get("crawlers")).putObject("verifiedRanges").putArray("Googlebot").add(block);
        return admin("PUT", "policy", policy.toString(), current.headers().firstValue("ETag").orElseThrow());
    }

    private HttpResponse<String> admin(String method, String path, String body, String ifMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.adminUri().resolve("/api/v1/" + path))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A page as Googlebot, sent from {@code localAddress} (any 127/8 address is this machine's), its status. */
    private int get(String localAddress) throws IOException {
        URI front = server.frontUri();
        try (Socket socket = new Socket(InetAddress.getByName(front.getHost()), front.getPort(),
                InetAddress.getByName(localAddress), 0)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /page/1 HTTP/1.1\r\nHost: " + front.getHost() + ":" + front.getPort() + "\r\nUser-Agent: "
                    + GOOGLEBOT + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            String statusLine = in.readLine();
            assertThat(statusLine).startsWith("HTTP/1.1 ");
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }
}
