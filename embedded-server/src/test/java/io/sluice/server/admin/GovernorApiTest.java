package io.sluice.server.admin;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.StateException;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The crawl governor's permit API through a real server over loopback. */
class GovernorApiTest {
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
    void aWorkerIsGrantedThenToldHowLongToWait() throws Exception {
        JsonNode first = json(worker("permits", "{\"domain\":\"Example.com\"}"));
        JsonNode second = json(worker("permits", "{\"domain\":\"example.com\"}"));

        assertThat(first.toString()).isEqualTo("{\"domain\":\"example.com\",\"granted\":true}");
        assertThat(second.get("granted").asBoolean()).isFalse();
        assertThat(second.get("reason").asText()).isEqualTo("PACING");
        assertThat(second.get("waitMillis").asLong()).isBetween(1L, 1_000L);
    }

    @Test
    void aHeldCallIsAnsweredWhenTheSlotOpens() throws Exception {
        worker("permits", "{\"domain\":\"example.com\"}");
        HttpResponse<String> held = worker("permits", "{\"domain\":\"example.com\",\"holdMillis\":5000}");

        assertThat(held.statusCode()).isEqualTo(200);
        assertThat(json(held).get("granted").asBoolean()).isTrue();
    }

    @Test
    void aStopAnswersTheHeldCallsAtOnceRatherThanCuttingThemWhenItsGraceRunsOut() throws Exception {
        server.governor().setMinDelay("held.example", 60_000);
        worker("permits", "{\"domain\":\"held.example\"}");
        // held up to 30 s (the policy's longest hold), longer than the stop's 10 s of grace
        CompletableFuture<HttpResponse<String>> held = http.sendAsync(HttpRequest.newBuilder(
                        server.adminUri().resolve("/api/v1/permits")).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + Files.readString(state.resolve("worker-token")).trim())
                .POST(HttpRequest.BodyPublishers.ofString("{\"domain\":\"held.example\",\"holdMillis\":30000}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        await(() -> metrics(server.adminToken())
                .contains("sluice_admin_held_permit_calls 1.0"), "the call to be held");

        servers.stop(server);

        HttpResponse<String> answer = held.get(30, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(json(answer).get("granted").asBoolean()).isFalse();
        assertThat(json(answer).get("waitMillis").asLong()).as("the domain's wait, to ask again after")
                .isGreaterThan(30_000L);
    }

    @Test
    void aPermitForAnyOfAFrontierGrantsTheFirstReadyAndNamesIt() throws Exception {
        String frontier = "{\"domains\":[\"a.example\",\"B.example\"]}";
        JsonNode first = json(worker("permits", frontier));
        JsonNode second = json(worker("permits", frontier));
        JsonNode none = json(worker("permits", frontier));
        HttpResponse<String> held = worker("permits", "{\"domains\":[\"a.example\",\"b.example\"],"
                + "\"holdMillis\":5000}");

        assertThat(first.toString()).isEqualTo("{\"domain\":\"a.example\",\"granted\":true}");
        assertThat(second.toString()).isEqualTo("{\"domain\":\"b.example\",\"granted\":true}");
        assertThat(none.get("granted").asBoolean()).isFalse();
        assertThat(none.get("domain").asText()).as("the one that opens first").isEqualTo("a.example");
        assertThat(none.get("waitMillis").asLong()).isBetween(1L, 1_000L);
        assertThat(json(held).get("granted").asBoolean()).as("held until one opens").isTrue();
        assertThat(json(held).get("domain").asText()).isEqualTo("a.example");
    }

    @Test
    void aBadFrontierIsA400NamingTheFieldAndChangesNothing() throws Exception {
        String tooMany = IntStream.rangeClosed(0, CrawlGovernor.MAX_PERMIT_DOMAINS)
                .mapToObj(i -> "\"d" + i + ".example\"").collect(Collectors.joining(","));
        HttpResponse<String> beyond = worker("permits", "{\"domains\":[" + tooMany + "]}");
        HttpResponse<String> empty = worker("permits", "{\"domains\":[]}");
        HttpResponse<String> badName = worker("permits", "{\"domains\":[\"ok.example\",\"https://x/y\"]}");
        HttpResponse<String> both = worker("permits", "{\"domain\":\"a.example\",\"domains\":[\"b.example\"]}");

        assertThat(beyond.statusCode()).isEqualTo(400);
        assertThat(beyond.body()).contains("\"field\":\"domains\"", "1 to 100 domains");
        assertThat(empty.statusCode()).isEqualTo(400);
        assertThat(empty.body()).contains("\"field\":\"domains\"");
        assertThat(badName.statusCode()).isEqualTo(400);
        assertThat(badName.body()).contains("\"field\":\"domains[1]\"", "not a host name");
        assertThat(both.statusCode()).isEqualTo(400);
        assertThat(json(worker("permits", "{\"domain\":\"ok.example\"}")).get("granted").asBoolean())
                .as("nothing was taken by a refused call").isTrue();
    }

    @Test
    void theWorkersTokenOpensPermitsAndFeedbackOnly() throws Exception {
        String workerToken = Files.readString(state.resolve("worker-token")).trim();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("worker-token"))))
                .isEqualTo("rw-------");
        assertThat(workerToken).isNotEqualTo(server.adminToken());

        assertThat(call("GET", "snapshot", null, workerToken).statusCode()).as("a worker may not read").isEqualTo(403);
        assertThat(call("GET", "domains", null, workerToken).statusCode()).isEqualTo(403);
        assertThat(call("POST", "domains/example.com/revive", "", workerToken).statusCode()).isEqualTo(403);
        assertThat(call("POST", "permits", "{\"domain\":\"example.com\"}", workerToken + "x").statusCode())
                .isEqualTo(401);
        assertThat(call("POST", "permits", "{\"domain\":\"example.com\"}", server.adminToken()).statusCode())
                .as("the admin token opens everything").isEqualTo(200);
    }

    @Test
    void retryAfterInFeedbackStopsEveryWorker() throws Exception {
        assertThat(json(worker("permits", "{\"domain\":\"example.com\"}")).get("granted").asBoolean()).isTrue();
        HttpResponse<String> reported = worker("feedback",
                "{\"domain\":\"example.com\",\"status\":429,\"retryAfterSeconds\":120,\"latencyMillis\":40}");
        JsonNode permit = json(worker("permits", "{\"domain\":\"example.com\"}"));

        assertThat(reported.statusCode()).isEqualTo(204);
        assertThat(permit.get("reason").asText()).isEqualTo("RETRY_AFTER");
        assertThat(permit.get("waitMillis").asLong()).isBetween(110_000L, 120_000L);
    }

    @Test
    void aReportWithoutAGrantToItsTokenChangesNothingAndIsCounted() throws Exception {
        for (int i = 0; i < 25; i++) {
            assertThat(worker("feedback", "{\"domain\":\"down.example\",\"status\":502}").statusCode())
                    .isEqualTo(204);
        }
        assertThat(json(worker("permits", "{\"domain\":\"down.example\"}")).get("granted").asBoolean()).isTrue();
        worker("feedback", "{\"domain\":\"down.example\",\"status\":502}");

        JsonNode domain = json(call("GET", "domains/down.example", null, server.adminToken()));
        assertThat(domain.get("consecutiveErrors").asInt()).as("the one report with a grant").isEqualTo(1);
        assertThat(domain.get("givenUp").asBoolean()).isFalse();
        String metrics = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("sluice_governor_reports_ignored_total 25.0");
    }

    @Test
    void badPermitsAndFeedbackNameEveryBadField() throws Exception {
        HttpResponse<String> permit = worker("permits", "{\"domain\":\"https://example.com/x\"}");
        HttpResponse<String> feedback = worker("feedback",
                "{\"domain\":\"\",\"status\":1200,\"retryAfterSeconds\":-1,\"crawlDelaySeconds\":-2}");
        HttpResponse<String> unknownField = worker("feedback", "{\"domain\":\"a.example\",\"status\":200,\"x\":1}");

        assertThat(permit.statusCode()).isEqualTo(400);
        assertThat(permit.body()).contains("\"field\":\"domain\"", "not a host name");
        assertThat(feedback.statusCode()).isEqualTo(400);
        assertThat(feedback.body()).contains("\"field\":\"domain\"", "\"field\":\"status\"",
                "\"field\":\"retryAfterSeconds\"", "\"field\":\"crawlDelaySeconds\"");
        assertThat(unknownField.statusCode()).isEqualTo(400);
        assertThat(server.governor().snapshot().tracked()).isZero();
    }

    @Test
    void aGivenUpDomainRaisesOneAlertSurvivesARestartAndAnOperatorRevivesIt() throws Exception {
        call("POST", "domains/down.example/rate", "{\"requestsPerSecond\":20}", server.adminToken());
        for (int i = 0; i < 20; i++) {
            // A report counts for a grant its token was given: fetch, then report.
            while (!json(worker("permits", "{\"domain\":\"down.example\",\"holdMillis\":1000}")).get("granted")
                    .asBoolean()) {
                assertThat(i).as("granted before it was given up").isLessThan(20);
            }
            worker("feedback", "{\"domain\":\"down.example\",\"status\":502,\"latencyMillis\":10}");
        }
        JsonNode domains = json(call("GET", "domains", null, server.adminToken()));
        assertThat(domains.get("alerts")).hasSize(1);
        String metrics = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("sluice_governor_domains_given_up 1.0", "sluice_governor_alerts 1.0");
        assertThat(domains.get("domains").get(0).get("givenUp").asBoolean()).isTrue();

        servers.stop(server);
        server = servers.start(ServerConfig.demo(state));

        JsonNode permit = json(worker("permits", "{\"domain\":\"down.example\"}"));
        assertThat(permit.toString())
                .isEqualTo("{\"domain\":\"down.example\",\"granted\":false,\"reason\":\"GIVEN_UP\"}");
        HttpResponse<String> revived = call("POST", "domains/down.example/revive", "", server.adminToken());
        assertThat(revived.statusCode()).isEqualTo(200);
        assertThat(json(revived).get("givenUp").asBoolean()).isFalse();
        assertThat(json(worker("permits", "{\"domain\":\"down.example\"}")).get("granted").asBoolean()).isTrue();

        JsonNode audit = json(call("GET", "audit", null, server.adminToken()));
        assertThat(audit.get(0).get("action").asText()).isEqualTo("domain.revive");
        assertThat(audit.get(0).get("before").get("givenUp").asBoolean()).isTrue();
        assertThat(audit.get(0).get("after").get("givenUp").asBoolean()).isFalse();
    }

    @Test
    void operatorActionsChangeTheDomainAndTheMinimumDelayIsSaved() throws Exception {
        String admin = server.adminToken();
        HttpResponse<String> delay = call("POST", "domains/slow.example/min-delay", "{\"millis\":5000}", admin);
        HttpResponse<String> rate = call("POST", "domains/fast.example/rate", "{\"requestsPerSecond\":4}", admin);
        HttpResponse<String> tooFast = call("POST", "domains/fast.example/rate", "{\"requestsPerSecond\":400}",
                admin);
        HttpResponse<String> reset = call("POST", "domains/fast.example/reset", "", admin);
        HttpResponse<String> unknown = call("POST", "domains/fast.example/explode", "", admin);

        assertThat(json(delay).get("minDelayMillis").asLong()).isEqualTo(5_000);
        assertThat(json(delay).get("effectiveRate").asDouble()).isEqualTo(0.2);
        assertThat(json(rate).get("rate").asDouble()).isEqualTo(4.0);
        assertThat(tooFast.statusCode()).isEqualTo(400);
        assertThat(tooFast.body()).contains("\"field\":\"requestsPerSecond\"", "governor.maxRate");
        assertThat(json(reset).get("rate").asDouble()).isEqualTo(1.0);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(Files.readString(state.resolve("domains.json"))).contains("slow.example", "5000");
        assertThat(json(call("GET", "domains/slow.example", null, admin)).get("minDelayMillis").asLong())
                .isEqualTo(5_000);
        assertThat(call("GET", "domains/never-seen.example", null, admin).statusCode()).isEqualTo(404);
    }

    @Test
    void aCorruptDomainsFileIsReportedAtStart() throws Exception {
        servers.stop(server);
        server = null;
        Files.writeString(state.resolve("domains.json"), "{\"a.example\": {\"minDelayMillis\": ");

        assertThatThrownBy(() -> servers.start(ServerConfig.demo(state)))
                .isInstanceOf(StateException.class).hasMessageContaining("domains.json");
    }

    @Test
    void governorLimitsAreInThePolicyAndEditableLive() throws Exception {
        HttpResponse<String> current = call("GET", "policy", null, server.adminToken());
        JsonNode policy = json(current);
        assertThat(policy.get("governor").get("maxRate").asDouble()).isEqualTo(20.0);

        ((ObjectNode) policy.get("governor")).put("initialRate", 0.5);
        HttpResponse<String> replaced = http.send(HttpRequest.newBuilder(server.adminUri().resolve("/api/v1/policy"))
                .header("Authorization", "Bearer " + server.adminToken())
                .header("If-Match", current.headers().firstValue("ETag").orElseThrow())
                .PUT(HttpRequest.BodyPublishers.ofString(policy.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(replaced.statusCode()).isEqualTo(200);

        worker("permits", "{\"domain\":\"new.example\"}");
        assertThat(json(worker("permits", "{\"domain\":\"new.example\"}")).get("waitMillis").asLong())
                .isBetween(1_001L, 2_000L);
    }

    private String metrics(String token) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private HttpResponse<String> worker(String path, String body) throws Exception {
        return call("POST", path, body, Files.readString(state.resolve("worker-token")).trim());
    }

    private HttpResponse<String> call(String method, String path, String body, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve("/api/v1/" + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return PolicyJson.mapper().readTree(response.body());
    }
}
