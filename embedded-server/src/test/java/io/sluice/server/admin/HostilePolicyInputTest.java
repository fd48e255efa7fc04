package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #27 through real HTTP: each pathological pattern or number an operator (or a stolen script) can send is
 * refused with a 400 naming the field, in under a second, nothing changes, and the server keeps serving both the
 * site and the operators.
 */
class HostilePolicyInputTest {
    /** What RE2/J alone would turn into an OutOfMemoryError, a slow match, a stack overflow or an endless loop. */
    private static final List<String> PATTERNS = List.of(
            "/((a{1000}){1000}){1000}/",
            "/(?:(?:.?){1000}){100}z/",
            "/" + "(".repeat(100) + "a" + ")".repeat(100) + "/",
            "/" + "(".repeat(10_000) + "/",
            "/bot\u1c80/");

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SluiceServer server;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
    }

    @Test
    void everyPathologicalBanPatternIsRefusedQuicklyAndTheServerKeepsServing() throws Exception {
        long version = server.engine().policy().version();
        for (String pattern : PATTERNS) {
            String body = PolicyJson.mapper().writeValueAsString(
                    Map.of("type", "agent", "value", pattern, "reason", "hostile"));

            long start = System.nanoTime();
            HttpResponse<String> response = send("POST", "bans", body, null);
            long millis = (System.nanoTime() - start) / 1_000_000;

            String shown = pattern.length() > 40 ? pattern.substring(0, 40) + "..." : pattern;
            assertThat(response.statusCode()).as(shown).isEqualTo(400);
            assertThat(response.body()).as(shown).contains("\"field\":\"value\"");
            // generous for a loaded machine; the unbounded program took minutes, then OutOfMemoryError
            assertThat(millis).as(shown + " milliseconds").isLessThan(5_000);
        }
        assertThat(server.engine().policy().version()).as("nothing changed").isEqualTo(version);
        assertStillServing();
    }

    @Test
    void pathologicalRoutesInAWholePolicyAreRefusedWithTheirFieldNamed() throws Exception {
        HttpResponse<String> current = send("GET", "policy", null, null);
        String etag = current.headers().firstValue("ETag").orElseThrow();
        ObjectNode policy = (ObjectNode) PolicyJson.mapper().readTree(current.body());
        ObjectNode route = policy.putArray("routes").addObject();
        route.put("match", "regex").put("path", "((a{1000}){1000}){1000}").put("weight", 1);

        long start = System.nanoTime();
        HttpResponse<String> response = send("PUT", "policy", policy.toString(), etag);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"field\":\"routes[0].path\"", "would compile to about");
        assertThat((System.nanoTime() - start) / 1_000_000).as("ms, generous for a loaded machine").isLessThan(5_000);
        assertStillServing();
    }

    @Test
    void numbersThatWouldOverflowAre400sNamingTheirField() throws Exception {
        HttpResponse<String> ban = send("POST", "bans",
                "{\"type\":\"ip\",\"value\":\"192.0.2.1\",\"durationSeconds\":9223372036854775807}", null);
        HttpResponse<String> tooLongForALong = send("POST", "bans",
                "{\"type\":\"ip\",\"value\":\"192.0.2.1\",\"durationSeconds\":92233720368547758070}", null);
        HttpResponse<String> nullBody = send("POST", "bans", "null", null);

        assertThat(ban.statusCode()).as(ban.body()).isEqualTo(400);
        assertThat(ban.body()).contains("\"field\":\"durationSeconds\"", "permanent");
        assertThat(tooLongForALong.statusCode()).as(tooLongForALong.body()).isEqualTo(400);
        assertThat(tooLongForALong.body()).contains("\"field\":\"durationSeconds\"");
        assertThat(nullBody.statusCode()).as(nullBody.body()).isEqualTo(400);
        assertThat(nullBody.body()).contains("\"field\":\"body\"");

        HttpResponse<String> current = send("GET", "policy", null, null);
        String etag = current.headers().firstValue("ETag").orElseThrow();
        JsonNode policy = PolicyJson.mapper().readTree(current.body());
        ((ObjectNode) policy.get("hitStack")).put("maxHits", 1e12);
        HttpResponse<String> huge = send("PUT", "policy", policy.toString(), etag);
        HttpResponse<String> nullPolicy = send("PUT", "policy", "null", etag);

        assertThat(huge.statusCode()).as(huge.body()).isEqualTo(400);
        assertThat(huge.body()).contains("\"field\":\"hitStack.maxHits\"");
        assertThat(nullPolicy.statusCode()).as(nullPolicy.body()).isEqualTo(400);
        assertThat(server.engine().policy().bans()).isEmpty();
        assertStillServing();
    }

    private void assertStillServing() throws Exception {
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(server.frontUri().resolve("/page/1"))
                .timeout(Duration.ofSeconds(5)).header("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as("the site").isEqualTo(200);
        assertThat(send("GET", "policy", null, null).statusCode()).as("the operators").isEqualTo(200);
    }

    private HttpResponse<String> send(String method, String path, String body, String ifMatch) throws Exception {
        return AdminCalls.send(http, server, method, path, body, ifMatch);
    }
}
