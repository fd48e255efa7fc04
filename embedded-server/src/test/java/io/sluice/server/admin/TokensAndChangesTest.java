package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.Main;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.StateException;
import io.sluice.server.testkit.Servers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Tokens by role, revocation, and policy changes made side by side, over real HTTPS on loopback. */
class TokensAndChangesTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private SluiceServer server;
    private Https https;

    @BeforeEach
    void start() throws Exception {
        server = servers.start(AdminTlsTest.tls(state));
        https = new Https(server);
    }

    @Test
    void aReadTokenReadsEverythingAndChangesNothing() throws Exception {
        String grafana = cli("token", "add", "grafana", "--role", "read", "--state", state.toString()).trim();

        assertThat(https.call("GET", "/api/v1/snapshot", null, grafana).statusCode()).isEqualTo(200);
        assertThat(https.call("GET", "/metrics", null, grafana).statusCode()).isEqualTo(200);
        assertThat(https.call("GET", "/api/v1/policy", null, grafana).statusCode()).isEqualTo(200);
        assertThat(https.call("GET", "/api/v1/audit", null, grafana).statusCode()).isEqualTo(200);
        HttpResponse<String> pause = https.call("POST", "/api/v1/pause", "", grafana);
        assertThat(pause.statusCode()).isEqualTo(403);
        assertThat(pause.body()).contains("grafana", "read");
        assertThat(https.call("GET", "/api/v1/tokens", null, grafana).statusCode()).isEqualTo(403);
        assertThat(https.call("POST", "/api/v1/permits", "{\"domain\":\"example.com\"}", grafana).statusCode())
                .isEqualTo(403);
        assertThat(server.engine().policy().pause().all()).isFalse();
    }

    @Test
    void aTokenRevokedFromTheCliIsRefusedAtOnceWithoutARestart() throws Exception {
        String ops = cli("token", "add", "ops", "--role", "admin", "--state", state.toString()).trim();
        assertThat(https.call("GET", "/api/v1/snapshot", null, ops).statusCode()).isEqualTo(200);
        assertThat(Files.readString(state.resolve("tokens.json"))).doesNotContain(ops);

        cli("token", "revoke", "ops", "--state", state.toString());

        assertThat(https.call("GET", "/api/v1/snapshot", null, ops).statusCode()).isEqualTo(401);
        assertThat(https.call("GET", "/api/v1/snapshot", null, server.adminToken()).statusCode())
                .as("the other tokens still work").isEqualTo(200);
    }

    @Test
    void tokensAddedAndRevokedThroughTheApiAndTheAuditNamesTheToken() throws Exception {
        HttpResponse<String> added = https.call("POST", "/api/v1/tokens",
                "{\"name\":\"alice-laptop\",\"role\":\"admin\"}", server.adminToken());
        assertThat(added.statusCode()).isEqualTo(201);
        String alice = PolicyJson.mapper().readTree(added.body()).get("token").asText();

        https.call("POST", "/api/v1/pause", "{\"class\":\"BOT\"}", alice, "X-Sluice-Operator", "Alice Smith");
        String grafana = cli("token", "add", "grafana", "--role", "read", "--state", state.toString()).trim();
        JsonNode audit = PolicyJson.mapper().readTree(https.call("GET", "/api/v1/audit?limit=2", null, grafana)
                .body());
        assertThat(audit.get(0).get("who").asText()).as("the CLI's change, after the pause")
                .isEqualTo("cli:" + System.getProperty("user.name"));
        assertThat(audit.get(1).get("who").asText()).isEqualTo("alice-laptop");
        assertThat(audit.get(1).get("operator").asText()).isEqualTo("Alice Smith");

        assertThat(https.call("DELETE", "/api/v1/tokens/alice-laptop", null, server.adminToken()).statusCode())
                .isEqualTo(204);
        assertThat(https.call("GET", "/api/v1/snapshot", null, alice).statusCode()).isEqualTo(401);
        JsonNode tokens = PolicyJson.mapper().readTree(https.call("GET", "/api/v1/tokens", null,
                server.adminToken()).body());
        assertThat(tokens.findValuesAsText("name")).containsExactlyInAnyOrder("admin", "worker", "grafana");
        assertThat(tokens.toString()).doesNotContain(grafana);
    }

    @Test
    void aBanAndAPauseMadeWhileSomeoneEditsTheLimitsDoNotFailTheirApply() throws Exception {
        HttpResponse<String> loaded = https.call("GET", "/api/v1/policy", null, server.adminToken());
        String etag = loaded.headers().firstValue("ETag").orElseThrow();

        https.call("POST", "/api/v1/bans", "{\"type\":\"agent\",\"value\":\"HTTrack\"}", server.adminToken());
        https.call("POST", "/api/v1/pause", "{\"class\":\"CRAWLER\"}", server.adminToken());
        HttpResponse<String> applied = https.call("PUT", "/api/v1/policy",
                loaded.body().replace("\"maxHits\":10", "\"maxHits\":25"), server.adminToken(), "If-Match", etag);

        assertThat(applied.statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(25);
        assertThat(server.engine().policy().bans()).singleElement()
                .satisfies(ban -> assertThat(ban.value()).isEqualTo("HTTrack"));
        assertThat(server.engine().policy().pause().classes()).containsExactly(RequestClass.CRAWLER);

        HttpResponse<String> sameFieldAgain = https.call("PUT", "/api/v1/policy",
                loaded.body().replace("\"maxHits\":10", "\"maxHits\":40"), server.adminToken(), "If-Match", etag);
        assertThat(sameFieldAgain.statusCode()).isEqualTo(412);
        assertThat(server.engine().policy().hitStack().maxHits()).isEqualTo(25);
    }

    @Test
    void aPolicyThatCannotBeWrittenLeavesTheLivePolicyAsItWasAndSaysSo() throws Exception {
        long version = server.engine().policy().version();
        Path policyFile = state.resolve("policy.json");
        Files.deleteIfExists(policyFile);
        // A directory where the file should be: the atomic rename over it fails, as a full or broken disk would.
        Files.createDirectories(policyFile.resolve("blocker"));

        HttpResponse<String> ban = https.call("POST", "/api/v1/bans", "{\"type\":\"ip\",\"value\":\"203.0.113.9\"}",
                server.adminToken());

        assertThat(ban.statusCode()).isEqualTo(503);
        assertThat(ban.body()).contains("not applied", "still version " + version);
        assertThat(server.engine().policy().version()).isEqualTo(version);
        assertThat(server.engine().policy().bans()).isEmpty();
        JsonNode audit = PolicyJson.mapper().readTree(https.call("GET", "/api/v1/audit?limit=2", null,
                server.adminToken()).body());
        assertThat(audit.get(0).get("action").asText()).isEqualTo("change.failed");
        assertThat(audit.get(1).get("action").asText()).isEqualTo("ban.add");
    }

    @Test
    void aTokenFileOthersCanReadStopsTheStartWithAClearMessage() throws Exception {
        servers.stop(server);
        server = null;
        Files.setPosixFilePermissions(state.resolve("admin-token"), PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> servers.start(ServerConfig.demo(state)))
                .isInstanceOf(StateException.class)
                .hasMessageContaining("admin-token").hasMessageContaining("readable or writable by others")
                .hasMessageContaining("chmod 600");
    }

    /** {@code sluice-server ARGS}, which must succeed; what it printed. */
    static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        assertThat(cli.execute(args)).as("%s: %s", String.join(" ", args), err).isZero();
        return out.toString();
    }
}
