package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.governor.GovernorSnapshot;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wire format is a contract: each document the admin API serves is checked against a golden fixture in
 * {@code src/test/resources/wire/}. Documents an operator writes or that carry no live figures (policy,
 * bans, an audit entry, permits) must match exactly; telemetry (snapshot, domains) must have exactly the
 * fixture's fields, whatever the figures. A change that fails here changes the public API: update the
 * fixture, the manual (docs/manual/admin-api.md) and the console together.
 */
class WireFormatTest {
    private static final ObjectMapper JSON = PolicyJson.mapper();

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    @Test
    void policy() throws Exception {
        exactly("policy.json", JSON.valueToTree(Policy.defaults()));
        assertThat(JSON.treeToValue(fixture("policy.json"), Policy.class)).isEqualTo(Policy.defaults());
    }

    @Test
    void bans() throws Exception {
        List<Ban> bans = List.of(
                new Ban("3f1c2b9e-0000-4000-8000-000000000001", BanType.AGENT, "HTTrack", "site copier", "alice",
                        Instant.parse("2026-11-22T10:00:00Z"), Instant.parse("2026-11-22T11:00:00Z")),
                new Ban("3f1c2b9e-0000-4000-8000-000000000002", BanType.IP, "203.0.113.0/24", "", "ops",
                        Instant.parse("2026-11-22T10:05:00Z"), null));
        exactly("bans.json", JSON.valueToTree(bans));
    }

    @Test
    void audit() throws Exception {
        AuditEntry entry = new AuditEntry(42, Instant.parse("2026-11-22T10:00:00Z"), "console", "alice", "pause",
                "paused CRAWLER", JSON.readTree("{\"all\":false,\"classes\":[]}"),
                JSON.readTree("{\"all\":false,\"classes\":[\"CRAWLER\"]}"));
        exactly("audit.json", JSON.valueToTree(List.of(entry)));
    }

    @Test
    void permits() throws Exception {
        List<Map<String, Object>> answers = List.of(
                PermitResource.permitJson(new Permit("example.com", true, 0, null)),
                PermitResource.permitJson(new Permit("example.com", false, 1250, PermitReason.PACING)));
        exactly("permits.json", JSON.valueToTree(answers));
    }

    @Test
    void snapshotAndDomainsHaveExactlyTheFixturesFields() throws Exception {
        // an IP-to-ASN file that puts loopback in an AS, so the snapshot's autonomous systems have a row
        Path asns = Files.writeString(state.resolve("ip2asn-v4.tsv"), "127.0.0.0\t127.255.255.255\t64500\tZZ\t"
                + "TEST-LOOPBACK\n");
        SluiceServer server = servers.start(ServerConfig.demo(state.resolve("state")).withAsnFile(asns));
        HttpClient http = HttpClient.newHttpClient();
        http.send(HttpRequest.newBuilder(server.frontUri().resolve("/page/1")).header("User-Agent", "curl/8.5")
                .build(), HttpResponse.BodyHandlers.discarding());
        // the request's cost is counted once its response is done, which the client may see a moment before
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (server.engine().snapshot().costTotals().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        call(http, server, "POST", "/api/v1/permits", "{\"domain\":\"example.com\"}");
        call(http, server, "POST", "/api/v1/feedback", "{\"domain\":\"example.com\",\"status\":200}");

        sameFields("snapshot.json", JSON.readTree(call(http, server, "GET", "/api/v1/snapshot", null)));
        sameFields("domains.json", JSON.readTree(call(http, server, "GET", "/api/v1/domains", null)));
    }

    @Test
    void theDomainsDocumentReadsBackAsTheConsoleReadsIt() throws Exception {
        GovernorSnapshot read = JSON.readerFor(GovernorSnapshot.class)
                .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readValue(fixture("domains.json"));
        assertThat(read.tracked()).isEqualTo(1);
        assertThat(read.ignoredReports()).isZero();
        assertThat(read.pacing().mode()).isEqualTo(Pacing.Mode.LOCAL);
    }

    private static String call(HttpClient http, SluiceServer server, String method, String path, String body)
            throws IOException, InterruptedException {
        URI uri = server.adminUri().resolve(path);
        return http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + server.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /**
     * Every field path of a document: arrays by the fields of their elements ({@code []}), maps keyed by an
     * enum (upper-case keys such as {@code BROWSER} or {@code HIT_STACK}) by {@code *}.
     */
    static TreeSet<String> fields(JsonNode node) {
        TreeSet<String> paths = new TreeSet<>();
        collect("", node, paths);
        return paths;
    }

    private static void collect(String path, JsonNode node, TreeSet<String> paths) {
        if (node.isArray()) {
            node.forEach(element -> collect(path + "[]", element, paths));
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                String name = field.getKey().matches("[A-Z][A-Z_]*") ? "*" : field.getKey();
                String child = path.isEmpty() ? name : path + "." + name;
                paths.add(child);
                collect(child, field.getValue(), paths);
            }
        }
    }

    static JsonNode fixture(String name) throws IOException {
        try (InputStream in = WireFormatTest.class.getResourceAsStream("/wire/" + name)) {
            if (in == null) {
                throw new IOException("no fixture wire/" + name);
            }
            return JSON.readTree(in);
        }
    }

    private static void exactly(String name, JsonNode served) throws IOException {
        regenerate(name, served);
        // As a client reads it: a long that fits an int reads back as an int node.
        JsonNode actual = JSON.readTree(JSON.writeValueAsString(served));
        assertThat(actual).as(name).isEqualTo(fixture(name));
    }

    private static void sameFields(String name, JsonNode actual) throws IOException {
        regenerate(name, actual);
        assertThat(fields(actual)).as(name).isEqualTo(fields(fixture(name)));
    }

    /**
     * With {@code SLUICE_WIRE_REGENERATE=DIR} in the environment, writes what is served now into DIR, to
     * review and copy over a fixture after a deliberate change of the API.
     */
    private static void regenerate(String name, JsonNode actual) throws IOException {
        String dir = System.getenv("SLUICE_WIRE_REGENERATE");
        if (dir != null) {
            Files.createDirectories(Path.of(dir));
            Files.writeString(Path.of(dir, name), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(actual)
                    + "\n");
        }
    }
}
