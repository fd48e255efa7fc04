package io.sluice.server;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.front.AccessLog;
import io.sluice.server.testkit.Servers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --access-log-format json}: written by a real front end, one object a line, and read by replay. */
class JsonAccessLogTest {
    private static final String AGENT = "Mozilla/5.0 (X11; Linux x86_64) \"quoted\" back\\slash";

    @TempDir
    Path dir;
    @RegisterExtension
    final Servers servers = new Servers();

    @Test
    void aRealFrontEndWritesOneObjectALineThatReplayReadsBesideNcsaLines() throws Exception {
        Path log = dir.resolve("access.log");
        ServerConfig config = new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("127.0.0.1", 0),
                dir.resolve("state"), null, true, false, log.toString(), ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null)
                .withAccessLogFormat(AccessLog.Format.JSON);
        Instant before = Instant.now().minusSeconds(1);
        SluiceServer server = servers.start(config);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (String target : List.of("/", "/?page=2")) {
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(server.frontUri().resolve(target))
                    .header("User-Agent", AGENT).header("Referer", "https://example.com/").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
        }
        awaitLines(log, 2);
        servers.stop(server); // the log is whole once the server has stopped

        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        JsonNode second = json.readTree(lines.get(1));
        assertThat(second.get("ip").asText()).isEqualTo("127.0.0.1");
        assertThat(second.get("method").asText()).isEqualTo("GET");
        assertThat(second.get("target").asText()).isEqualTo("/?page=2");
        assertThat(second.get("protocol").asText()).isEqualTo("HTTP/1.1");
        assertThat(second.get("status").asInt()).isEqualTo(200);
        assertThat(second.get("bytes").asLong()).isPositive();
        assertThat(second.get("referer").asText()).isEqualTo("https://example.com/");
        assertThat(second.get("user_agent").asText()).isEqualTo(AGENT);
        assertThat(second.get("sluice").asText()).isEqualTo("ADMIT");
        assertThat(Instant.parse(second.get("time").asText())).isBetween(before, Instant.now());

        // A reload can switch the format: replay takes each line as it comes.
        List<String> mixed = new ArrayList<>(lines);
        mixed.add("203.0.113.7 - - [01/Mar/2026:12:00:00 +0000] \"GET /copy HTTP/1.1\" 503 0 \"-\" \"curl/8\" "
                + "sluice=REFUSE:HIT_STACK");
        mixed.add("{\"not\": \"a request\"}");
        Path both = Files.write(dir.resolve("both.log"), mixed);
        Path policy = Files.writeString(dir.resolve("policy.json"),
                PolicyJson.mapper().writeValueAsString(Policy.defaults()));
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));

        assertThat(cli.execute("replay", "--policy", policy.toString(), "--json", both.toString())).isEqualTo(0);

        JsonNode report = PolicyJson.mapper().readTree(out.toString());
        assertThat(report.get("requests").asLong()).isEqualTo(3);
        assertThat(report.get("liveRefused").asLong()).isEqualTo(1);
    }

    /** The log is written by its own thread: waits for {@code count} lines. */
    private static void awaitLines(Path log, int count) {
        await(() -> Files.exists(log) && Files.readAllLines(log).size() >= count, count + " lines in " + log);
    }
}
