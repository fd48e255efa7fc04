package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice-server replay} on a log of Sluice's own, written by the test. */
class ReplayCliTest {
    private static final String HTTRACK = "Mozilla/4.5 (compatible; HTTrack 3.0x; Windows 98)";
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private Path log;
    private Path candidate;
    private Path live;

    @BeforeEach
    void write() throws Exception {
        // a copier at 4 a second for 5 s (Sluice admitted its first 10), a browser reading 3 pages
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add("203.0.113.7 - - [01/Mar/2026:12:00:0" + i / 4 + " +0000] \"GET /copy/" + i + " HTTP/1.1\" "
                    + (i < 10 ? "200 5120" : "503 0") + " \"-\" \"" + HTTRACK + "\" sluice="
                    + (i < 10 ? "ADMIT" : "REFUSE:HIT_STACK"));
        }
        for (int i = 0; i < 3; i++) {
            lines.add("198.51.100.4 - - [01/Mar/2026:12:00:0" + (5 + i) + " +0000] \"GET /read/" + i
                    + " HTTP/1.1\" 200 5120 \"https://example.com/\" \"" + FIREFOX + "\" sluice=ADMIT");
        }
        log = Files.write(dir.resolve("access.log"), lines);
        candidate = dir.resolve("candidate.json");
        live = dir.resolve("live.json");
        Files.writeString(candidate, PolicyJson.mapper().writeValueAsString(
                Policy.defaults().withHitStack(new Policy.HitStack(15, 8))));
        Files.writeString(live, PolicyJson.mapper().writeValueAsString(Policy.defaults()));
    }

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    @Test
    void printsWhatTheCandidateWouldHaveDoneAndToWhom() {
        assertThat(run("replay", "--policy", candidate.toString(), log.toString())).isEqualTo(0);
        assertThat(out.toString())
                .contains("23 requests: live refused 10, the candidate would refuse 12")
                .contains("1 clients treated differently, 0 of them browsers")
                .containsPattern("BOT +REFUSE:HIT_STACK +10 +12 +\\+2")
                .contains("203.0.113.7").contains("ADMIT 10, HIT_STACK 10").contains("ADMIT 8, HIT_STACK 12")
                .contains("in flight 100 ms");
        // standard error is not a terminal here: no progress line
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void jsonIsTheShadowReportFormatAndAgainstReplaysASecondPolicy() throws Exception {
        assertThat(run("replay", "--policy", candidate.toString(), "--against", live.toString(), "--json",
                "--request-millis", "50", log.toString())).isEqualTo(0);
        JsonNode report = PolicyJson.mapper().readTree(out.toString());
        assertThat(report.get("source").asText()).isEqualTo("replay");
        assertThat(report.get("baseline").asText()).contains("--against");
        assertThat(report.get("requests").asLong()).isEqualTo(23);
        assertThat(report.get("liveRefused").asLong()).isEqualTo(10);
        assertThat(report.get("candidateRefused").asLong()).isEqualTo(12);
        assertThat(report.at("/clients/0/userAgent").asText()).isEqualTo(HTTRACK);
        assertThat(report.get("notes").toString()).contains("in flight 50 ms");
    }

    @Test
    void anInvalidPolicyOrAMissingLogIsAClearError() throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, PolicyJson.mapper().writeValueAsString(
                Policy.defaults().withHitStack(new Policy.HitStack(15, 0))));
        assertThat(run("replay", "--policy", bad.toString(), log.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("invalid policy file").contains("hitStack.maxHits");
        assertThat(run("replay", "--policy", candidate.toString(), dir.resolve("nope.log").toString())).isEqualTo(1);
        assertThat(err.toString()).contains("cannot read access log").contains("nope.log");
        assertThat(run("replay", log.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--policy=FILE'");
        assertThat(out.toString()).isEmpty();
    }
}
