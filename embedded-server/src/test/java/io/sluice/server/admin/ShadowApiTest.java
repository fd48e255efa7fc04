package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: a shadow policy installed over the admin API of a real server, real traffic through its front
 * end, the report naming the client the candidate would refuse; then promoted like a normal edit.
 */
class ShadowApiTest {
    private static final String HTTRACK = "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)";
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();
    private SluiceServer server;
    private org.eclipse.jetty.client.HttpClient copier;
    private org.eclipse.jetty.client.HttpClient reader;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(ServerConfig.demo(state));
        copier = client("127.0.0.66");
        reader = client("127.0.0.67");
    }

    private static org.eclipse.jetty.client.HttpClient client(String address) throws Exception {
        org.eclipse.jetty.client.HttpClient client = new org.eclipse.jetty.client.HttpClient();
        client.setUserAgentField(null);
        client.setBindAddress(new InetSocketAddress(address, 0));
        client.start();
        return client;
    }

    @AfterEach
    void stop() throws Exception {
        copier.stop();
        reader.stop();
    }

    /** The live policy with a lower hit limit: 4 in 15 s instead of 10. */
    private String candidate() throws Exception {
        ObjectNode policy = (ObjectNode) PolicyJson.mapper().readTree(send("GET", "policy", null, null).body());
        ((ObjectNode) policy.get("hitStack")).put("maxHits", 4);
        return policy.toString();
    }

    @Test
    void theReportNamesTheClientTheCandidateWouldRefuseAndPromoteMakesItLive() throws Exception {
        HttpResponse<String> installed = send("PUT", "policy/shadow", candidate(), null);
        assertThat(installed.statusCode()).isEqualTo(200);
        assertThat(json(installed).at("/policy/hitStack/maxHits").asInt()).isEqualTo(4);

        for (int i = 0; i < 7; i++) {
            assertThat(fetch(copier, HTTRACK, "/page/" + i)).isEqualTo(200); // live allows 10
        }
        assertThat(fetch(reader, FIREFOX, "/")).isEqualTo(200);
        assertThat(fetch(reader, FIREFOX, "/page/1")).isEqualTo(200);

        JsonNode report = awaitReport(9);
        assertThat(report.get("source").asText()).isEqualTo("live");
        assertThat(report.get("liveRefused").asLong()).isZero();
        assertThat(report.get("candidateRefused").asLong()).isEqualTo(3);
        assertThat(report.get("clientsDiffering").asInt()).isEqualTo(1);
        assertThat(report.get("browsersDiffering").asInt()).isZero();
        JsonNode named = report.get("clients").get(0);
        assertThat(named.get("ip").asText()).isEqualTo("127.0.0.66");
        assertThat(named.get("userAgent").asText()).isEqualTo(HTTRACK);
        assertThat(named.get("requests").asLong()).isEqualTo(7);
        assertThat(named.at("/live/ADMIT").asLong()).isEqualTo(7);
        assertThat(named.at("/candidate/ADMIT").asLong()).isEqualTo(4);
        assertThat(named.at("/candidate/REFUSE:HIT_STACK").asLong()).isEqualTo(3);
        JsonNode summary = json(send("GET", "snapshot", null, null)).get("shadow");
        assertThat(summary.get("candidateRefused").asLong()).isEqualTo(3);
        assertThat(summary.get("requests").asLong()).isEqualTo(9);

        // promote: like PUT /policy, it needs the live version and conflicts when it moved
        long live = json(send("GET", "policy", null, null)).get("version").asLong();
        assertThat(send("POST", "policy/shadow/promote", null, null).statusCode()).isEqualTo(428);
        HttpResponse<String> stale = send("POST", "policy/shadow/promote", null, "\"" + (live - 1) + "\"");
        assertThat(stale.statusCode()).isEqualTo(412);
        assertThat(json(stale).get("currentVersion").asLong()).isEqualTo(live);
        assertThat(json(send("GET", "policy", null, null)).at("/hitStack/maxHits").asInt()).isEqualTo(10);

        HttpResponse<String> promoted = send("POST", "policy/shadow/promote", null, "\"" + live + "\"");
        assertThat(promoted.statusCode()).isEqualTo(200);
        assertThat(promoted.headers().firstValue("ETag")).hasValue("\"" + (live + 1) + "\"");
        assertThat(json(promoted).at("/hitStack/maxHits").asInt()).isEqualTo(4);
        assertThat(Files.readString(state.resolve("policy.json"), StandardCharsets.UTF_8)).contains("\"maxHits\" : 4");
        JsonNode audit = json(send("GET", "audit?limit=5", null, null));
        assertThat(audit.get(0).get("action").asText()).isEqualTo("policy.promote");
        assertThat(audit.get(0).get("detail").asText())
                .isEqualTo("promoted from shadow: policy version " + live + " -> " + (live + 1) + ": hitStack.maxHits");
        assertThat(audit.get(1).get("action").asText()).isEqualTo("shadow.install");
        // the shadow is live now: nothing is left beside it, and the copier is held to 4
        assertThat(send("GET", "policy/shadow", null, null).statusCode()).isEqualTo(404);
        assertThat(fetch(copier, HTTRACK, "/page/9")).isEqualTo(503);
    }

    @Test
    void anInvalidCandidateIsRefusedNamingTheFieldAndRemovingIsAudited() throws Exception {
        ObjectNode bad = (ObjectNode) PolicyJson.mapper().readTree(candidate());
        ((ObjectNode) bad.get("hitStack")).put("maxHits", 0);
        HttpResponse<String> refused = send("PUT", "policy/shadow", bad.toString(), null);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(json(refused).at("/errors/0/field").asText()).isEqualTo("hitStack.maxHits");
        assertThat(send("GET", "policy/shadow", null, null).statusCode()).isEqualTo(404);
        assertThat(json(send("GET", "snapshot", null, null)).get("shadow").isNull()).isTrue();

        assertThat(send("PUT", "policy/shadow", candidate(), null).statusCode()).isEqualTo(200);
        assertThat(send("DELETE", "policy/shadow", null, null).statusCode()).isEqualTo(204);
        assertThat(send("DELETE", "policy/shadow", null, null).statusCode()).isEqualTo(404);
        assertThat(send("POST", "policy/shadow/promote", null, "\"1\"").statusCode()).isEqualTo(404);
        assertThat(json(send("GET", "audit?limit=1", null, null)).get(0).get("action").asText())
                .isEqualTo("shadow.remove");
        HttpResponse<String> wrong = send("POST", "policy/shadow", null, null);
        assertThat(wrong.statusCode()).isEqualTo(405);
        assertThat(wrong.headers().firstValue("Allow")).hasValue("GET, PUT, DELETE");
    }

    /** Polls the shadow's report until it has counted {@code requests} (its thread feeds it asynchronously). */
    private JsonNode awaitReport(long requests) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        JsonNode report;
        do {
            HttpResponse<String> response = send("GET", "policy/shadow", null, null);
            assertThat(response.statusCode()).isEqualTo(200);
            report = json(response).get("report");
            if (report.get("requests").asLong() >= requests) {
                return report;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the shadow counted " + report.get("requests") + " requests, not " + requests);
    }

    private int fetch(org.eclipse.jetty.client.HttpClient client, String agent, String path) throws Exception {
        return client.newRequest(server.frontUri().resolve(path)).headers(h -> h.put(HttpHeader.USER_AGENT, agent))
                .timeout(10, TimeUnit.SECONDS).send().getStatus();
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return PolicyJson.mapper().readTree(response.body());
    }

    private HttpResponse<String> send(String method, String path, String body, String ifMatch) throws Exception {
        return AdminCalls.send(http, server, method, path, body, ifMatch);
    }
}
