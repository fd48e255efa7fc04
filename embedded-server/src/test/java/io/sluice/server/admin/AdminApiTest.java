package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.StateException;
import io.sluice.server.testkit.Servers;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The admin API through a real server over loopback, with its state on disk. */
class AdminApiTest {
    private static final String HTTRACK = "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)";

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();
    private SluiceServer server;
    private org.eclipse.jetty.client.HttpClient siteClient;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
        siteClient = new org.eclipse.jetty.client.HttpClient();
        siteClient.setUserAgentField(null);
        siteClient.setBindAddress(new InetSocketAddress("127.0.0.66", 0));
        siteClient.start();
    }

    @AfterEach
    void stop() throws Exception {
        siteClient.stop();
    }

    @Test
    void noTokenOrAWrongTokenGets401AndChangesNothing() throws Exception {
        HttpResponse<String> none = http.send(HttpRequest.newBuilder(api("snapshot")).build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(api("pause"))
                .header("Authorization", "Bearer " + server.adminToken() + "x")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("Bearer"));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(metrics.statusCode()).isEqualTo(401);
        assertThat(server.engine().policy().pause().all()).isFalse();
    }

    @Test
    void theTokenFileIsReadableByItsOwnerOnly() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("admin-token"))))
                .isEqualTo("rw-------");
        assertThat(Files.readString(state.resolve("admin-token")).trim()).isEqualTo(server.adminToken());
    }

    @Test
    void aBanAppliesToTheVeryNextRequestAndUnbanLiftsIt() throws Exception {
        assertThat(fetchAsSiteCopier().getStatus()).isEqualTo(200);

        HttpResponse<String> created = send("POST", "bans",
                "{\"type\":\"ip\",\"value\":\"127.0.0.66\",\"reason\":\"copier\",\"durationSeconds\":3600}", null);
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode ban = PolicyJson.mapper().readTree(created.body());
        assertThat(ban.get("author").asText()).isEqualTo("admin");
        assertThat(fetchAsSiteCopier().getStatus()).isEqualTo(403);

        HttpResponse<String> removed = send("DELETE", "bans/" + ban.get("id").asText(), null, null);
        assertThat(removed.statusCode()).isEqualTo(204);
        assertThat(fetchAsSiteCopier().getStatus()).isEqualTo(200);
        assertThat(send("DELETE", "bans/" + ban.get("id").asText(), null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aBadBanIsRefusedWithEveryErrorNamed() throws Exception {
        HttpResponse<String> response = send("POST", "bans", "{\"type\":\"nope\",\"value\":\" \"}", null);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"field\":\"type\"", "\"field\":\"value\"");
        assertThat(server.engine().policy().bans()).isEmpty();
    }

    @Test
    void pauseAndResumeOneClassOrTheWholeService() throws Exception {
        assertThat(send("POST", "pause", "{\"class\":\"BOT\"}", null).statusCode()).isEqualTo(200);
        assertThat(fetchAsSiteCopier().getStatus()).isEqualTo(503);
        assertThat(send("POST", "resume", "{\"class\":\"BOT\"}", null).statusCode()).isEqualTo(200);
        assertThat(fetchAsSiteCopier().getStatus()).isEqualTo(200);

        assertThat(send("POST", "pause", "", null).statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().pause().all()).isTrue();
        assertThat(send("POST", "pause", "{\"class\":\"ROBOT\"}", null).statusCode()).isEqualTo(400);
    }

    /** {@code policy} with its {@code section}'s {@code field} set to {@code value}, as an operator's editor would. */
    private static String edited(String policy, String section, String field, int value) throws Exception {
        ObjectNode tree = (ObjectNode) PolicyJson.mapper().readTree(policy);
        ((ObjectNode) tree.get(section)).put(field, value);
        return PolicyJson.mapper().writeValueAsString(tree);
    }

    @Test
    void policyPutNeedsTheCurrentVersionAndValidatesEveryField() throws Exception {
        HttpResponse<String> current = send("GET", "policy", null, null);
        assertThat(current.headers().firstValue("ETag")).hasValue("\"1\"");
        String raised = edited(current.body(), "hitStack", "maxHits", 50);
        String broken = edited(edited(current.body(), "hitStack", "maxHits", 0), "load", "maxActive", -1);

        HttpResponse<String> invalid = send("PUT", "policy", broken, "\"1\"");
        assertThat(invalid.statusCode()).isEqualTo(400);
        assertThat(invalid.body()).contains("hitStack.maxHits", "load.maxActive");
        assertThat(server.engine().policy().version()).isEqualTo(1);

        assertThat(send("PUT", "policy", raised, null).statusCode()).isEqualTo(428);
        HttpResponse<String> applied = send("PUT", "policy", raised, "\"1\"");
        assertThat(applied.statusCode()).isEqualTo(200);
        assertThat(applied.headers().firstValue("ETag")).hasValue("\"2\"");
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(50);

        String otherwiseRaised = edited(current.body(), "hitStack", "maxHits", 70);
        HttpResponse<String> stale = send("PUT", "policy", otherwiseRaised, "\"1\"");
        assertThat(stale.statusCode()).as("the same field, edited from version 1 meanwhile").isEqualTo(412);
        assertThat(stale.body()).contains("\"currentVersion\":2", "\"conflicts\":[\"hitStack.maxHits\"]");

        assertThat(send("PUT", "policy", "{not json", "\"2\"").statusCode()).isEqualTo(400);
    }

    @Test
    void policyBansAndAuditSurviveARestart() throws Exception {
        send("POST", "bans", "{\"type\":\"agent\",\"value\":\"HTTrack\",\"reason\":\"copier\"}", null);
        send("POST", "pause", "{\"class\":\"CRAWLER\"}", null);
        String token = server.adminToken();
        servers.stop(server);

        server = servers.start(ServerConfig.demo(state));

        assertThat(server.adminToken()).isEqualTo(token);
        assertThat(server.engine().policy().bans()).singleElement()
                .satisfies(b -> assertThat(b.value()).isEqualTo("HTTrack"));
        assertThat(server.engine().policy().pause().classes()).containsExactly(
                RequestClass.CRAWLER);
        JsonNode audit = PolicyJson.mapper().readTree(send("GET", "audit", null, null).body());
        assertThat(audit).hasSize(2);
        assertThat(audit.get(0).get("action").asText()).isEqualTo("pause");
        assertThat(audit.get(1).get("action").asText()).isEqualTo("ban.add");
    }

    @Test
    void aTornLastAuditLineIsIgnoredAndTheNextEntryStartsCleanly() throws Exception {
        send("POST", "pause", "", null);
        servers.stop(server);
        Files.writeString(state.resolve("audit.log"), "{\"at\":\"2026-11-22T10:", StandardOpenOption.APPEND);

        server = servers.start(ServerConfig.demo(state));
        send("POST", "resume", "", null);

        JsonNode audit = PolicyJson.mapper().readTree(send("GET", "audit", null, null).body());
        assertThat(audit).hasSize(2);
        assertThat(audit.get(0).get("action").asText()).isEqualTo("resume");
        assertThat(Files.readAllLines(state.resolve("audit.log"))).hasSize(2);
    }

    @Test
    void aCorruptPolicyFileIsReportedAtStartNotReplacedByDefaults() throws Exception {
        send("POST", "pause", "", null);
        servers.stop(server);
        server = null;
        Files.writeString(state.resolve("policy.json"), "{\"version\": 3, \"hitStack\": ", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> servers.start(ServerConfig.demo(state)))
                .isInstanceOf(StateException.class)
                .hasMessageContaining("policy.json");
        assertThat(Files.readString(state.resolve("policy.json"))).startsWith("{\"version\": 3");
    }

    @Test
    void snapshotStreamAndMetricsServeTheEnginesView() throws Exception {
        fetchAsSiteCopier();

        JsonNode snapshot = PolicyJson.mapper().readTree(send("GET", "snapshot", null, null).body());
        assertThat(snapshot.get("topClients").get(0).get("ip").asText()).isEqualTo("127.0.0.66");
        assertThat(snapshot.get("topClients").get(0).get("crawlerName").asText()).isEqualTo("HTTrack");

        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains("sluice_clients_tracked 1.0", "sluice_policy_version 1.0",
                "# TYPE sluice_requests_total counter",
                "sluice_requests_total{class=\"BOT\",outcome=\"ADMITTED\"} 1.0",
                "sluice_browser_check_total{step=\"withheld\"} 0.0", "sluice_browser_check_passes_in_use 0.0",
                "sluice_browser_check_total{step=\"over_network_concurrency\"} 0.0",
                "sluice_browser_check_busiest_network_in_flight{pass=\"without\"} 0.0",
                "sluice_browser_check_networks_evicted_total 0.0",
                "sluice_crawler_ranges_age_seconds{source=\"bundled\"}",
                "sluice_crawler_ranges_kept{source=\"bundled\"} 0.0",
                "sluice_crawler_dns_lookups_total{result=\"unanswered\"} 0.0");
        // where the crawlers' ranges come from, and how old they are
        assertThat(snapshot.get("crawlerVerification").get("ranges").get(0).get("source").asText())
                .isEqualTo("bundled");
        assertThat(snapshot.get("crawlerVerification").get("ranges").get(0).get("ageSeconds").asLong())
                .isNotNegative();

        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(api("stream"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("text/event-stream"));
        try (var lines = new BufferedReader(new InputStreamReader(stream.body(),
                StandardCharsets.UTF_8))) {
            int events = 0;
            while (events < 2) {
                String line = lines.readLine();
                assertThat(line).isNotNull();
                if (line.startsWith("data: ")) {
                    assertThat(PolicyJson.mapper().readTree(line.substring(6)).has("topClients")).isTrue();
                    events++;
                }
            }
        }
    }

    @Test
    void unknownPathsAndWrongMethodsAreClearErrors() throws Exception {
        assertThat(send("GET", "nothing-here", null, null).statusCode()).isEqualTo(404);
        HttpResponse<String> wrongMethod = send("DELETE", "snapshot", null, null);
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("GET");
    }

    private ContentResponse fetchAsSiteCopier() throws Exception {
        return siteClient.newRequest(server.frontUri().resolve("/page/1"))
                .headers(h -> h.put(HttpHeader.USER_AGENT, HTTRACK))
                .timeout(5, TimeUnit.SECONDS).send();
    }

    private URI api(String path) {
        return AdminCalls.api(server, path);
    }

    private HttpResponse<String> send(String method, String path, String body, String ifMatch) throws Exception {
        return AdminCalls.send(http, server, method, path, body, ifMatch);
    }
}
