package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.BrowserCheck;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /api/v1/browser-check}: the operator's switches of the browser check (the mode, one network), each
 * one audited action; bad input changes nothing; a read token cannot.
 */
class BrowserCheckApiTest {

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

    private HttpResponse<String> post(String body) throws Exception {
        return AdminCalls.send(http, server, "POST", "browser-check", body, null);
    }

    private AuditEntry newest() {
        return server.state().audit().newestFirst(1).get(0);
    }

    @Test
    void theModeIsSetForTheWholeSiteInOneAuditedAction() throws Exception {
        HttpResponse<String> answer = post("{\"mode\":\"always\"}");
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"mode\":\"always\"");
        assertThat(server.engine().policy().browserCheck().mode()).isEqualTo(BrowserCheck.Mode.ALWAYS);
        assertThat(newest().action()).isEqualTo("browser-check.mode");
        assertThat(newest().detail()).isEqualTo("browser check always");
    }

    @Test
    void oneNetworkIsChallengedAndUndoneFromTheSamePlace() throws Exception {
        assertThat(post("{\"network\":\"203.0.113.0/24\",\"challenge\":true}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallenge()).containsExactly("203.0.113.0/24");
        assertThat(newest().detail()).isEqualTo("challenge 203.0.113.0/24");
        assertThat(post("{\"network\":\"203.0.113.0/24\",\"challenge\":true}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallenge()).as("listed once")
                .containsExactly("203.0.113.0/24");

        assertThat(post("{\"network\":\"203.0.113.0/24\",\"challenge\":false}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallenge()).isEmpty();
        assertThat(newest().detail()).isEqualTo("stop challenging 203.0.113.0/24");
    }

    @Test
    void oneAutonomousSystemIsChallengedAndUndoneFromTheSamePlace() throws Exception {
        assertThat(post("{\"asn\":16509,\"challenge\":true}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallengeAsns()).containsExactly(16509L);
        assertThat(newest().action()).isEqualTo("browser-check.asn");
        assertThat(newest().detail()).isEqualTo("challenge AS16509");
        assertThat(post("{\"asn\":16509,\"challenge\":true}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallengeAsns()).as("listed once")
                .containsExactly(16509L);
        assertThat(server.engine().snapshot().browserCheck().alwaysChallengeAsns()).containsExactly(16509L);

        assertThat(post("{\"asn\":16509,\"challenge\":false}").statusCode()).isEqualTo(200);
        assertThat(server.engine().policy().browserCheck().alwaysChallengeAsns()).isEmpty();
        assertThat(newest().detail()).isEqualTo("stop challenging AS16509");
    }

    @Test
    void badInputIsAClearErrorAndChangesNothing() throws Exception {
        long version = server.engine().policy().version();
        String[] bodies = {"{\"mode\":\"sometimes\"}", "{\"network\":\"not-a-network\",\"challenge\":true}",
            "{\"network\":\"10.0.0.0/8\"}", "{\"network\":\"203.0.113.7/24\",\"challenge\":true}", "{}",
            "{\"mode\":\"off\",\"network\":\"10.0.0.0/8\",\"challenge\":true}", "not json",
            "{\"asn\":0,\"challenge\":true}", "{\"asn\":4294967296,\"challenge\":true}", "{\"asn\":16509}",
            "{\"asn\":\"AS16509\",\"challenge\":true}",
            "{\"asn\":16509,\"network\":\"10.0.0.0/8\",\"challenge\":true}"};
        for (String body : bodies) {
            HttpResponse<String> answer = post(body);
            assertThat(answer.statusCode()).as(body).isEqualTo(400);
            assertThat(answer.body()).as(body).contains("\"field\"");
        }
        assertThat(server.engine().policy().version()).isEqualTo(version);
    }

    @Test
    void aReadTokenCannotSwitchIt() throws Exception {
        String reader = AdminCalls.addToken(http, server, "dashboard", "read");
        HttpResponse<String> answer = AdminCalls.as(http, server, reader, "POST", "/api/v1/browser-check",
                "{\"mode\":\"off\"}");
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(server.engine().policy().browserCheck().mode()).isEqualTo(BrowserCheck.Mode.ADAPTIVE);
    }
}
