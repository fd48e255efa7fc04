package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Who may call what, as a table of role x route x method -> status over real HTTP: 401 without a token, 404 for a
 * path no route maps, 405 for a method the route lacks (whoever asks), 403 for a role the method is not declared
 * for. The expectations are written out here, not computed from {@link Permissions}: this is the contract.
 */
class RoleTableTest {
    @TempDir
    static Path state;
    @RegisterExtension
    static final Servers SERVERS = new Servers();

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SluiceServer server;
    private static Map<String, String> tokens;

    @BeforeAll
    static void start() throws Exception {
        server = SERVERS.start(ServerConfig.demo(state));
        tokens = Map.of("admin", server.adminToken(),
                "read", AdminCalls.addToken(HTTP, server, "grafana", "read"),
                "worker", AdminCalls.addToken(HTTP, server, "crawler-7", "worker"));
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {4}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            none   | GET    | /api/v1/snapshot                      | -                                  | 401
            none   | GET    | /api/v1/nothing-here                  | -                                  | 401
            admin  | GET    | /api/v1/nothing-here                  | -                                  | 404
            read   | GET    | /api/v1/nothing-here                  | -                                  | 404
            worker | POST   | /api/v1/nothing-here                  | {}                                 | 404
            admin  | GET    | /api/v1/snapshot                      | -                                  | 200
            read   | GET    | /api/v1/snapshot                      | -                                  | 200
            worker | GET    | /api/v1/snapshot                      | -                                  | 403
            admin  | DELETE | /api/v1/snapshot                      | -                                  | 405
            read   | POST   | /api/v1/snapshot                      | {}                                 | 405
            read   | GET    | /metrics                              | -                                  | 200
            worker | GET    | /metrics                              | -                                  | 403
            read   | GET    | /api/v1/policy                        | -                                  | 200
            read   | PUT    | /api/v1/policy                        | {}                                 | 403
            admin  | PUT    | /api/v1/policy                        | {}                                 | 428
            read   | GET    | /api/v1/policy/shadow                 | -                                  | 404
            worker | GET    | /api/v1/policy/shadow                 | -                                  | 403
            read   | DELETE | /api/v1/policy/shadow                 | -                                  | 403
            read   | POST   | /api/v1/policy/shadow/promote         | -                                  | 403
            read   | POST   | /api/v1/pause                         | {}                                 | 403
            worker | POST   | /api/v1/pause                         | {}                                 | 403
            admin  | POST   | /api/v1/resume                        | -                                  | 200
            read   | GET    | /api/v1/audit                         | -                                  | 200
            worker | GET    | /api/v1/audit                         | -                                  | 403
            admin  | GET    | /api/v1/tokens                        | -                                  | 200
            read   | GET    | /api/v1/tokens                        | -                                  | 403
            worker | GET    | /api/v1/tokens                        | -                                  | 403
            read   | DELETE | /api/v1/tokens/nobody                 | -                                  | 403
            admin  | DELETE | /api/v1/tokens/nobody                 | -                                  | 404
            read   | DELETE | /api/v1/bans/no-such-ban              | -                                  | 403
            admin  | DELETE | /api/v1/bans/no-such-ban              | -                                  | 404
            worker | POST   | /api/v1/permits                       | {"domain":"permits.example"}       | 200
            admin  | POST   | /api/v1/permits                       | {"domain":"permits.example"}       | 200
            read   | POST   | /api/v1/permits                       | {"domain":"permits.example"}       | 403
            worker | GET    | /api/v1/permits                       | -                                  | 405
            worker | POST   | /api/v1/feedback                      | {"domain":"a.example","status":200}| 204
            read   | POST   | /api/v1/feedback                      | {"domain":"a.example","status":200}| 403
            # a worker's permit calls are /api/v1/permits and /api/v1/feedback: there is no per-domain one
            worker | POST   | /api/v1/domains/permits.example/permit| {}                                 | 404
            read   | GET    | /api/v1/domains                       | -                                  | 200
            worker | GET    | /api/v1/domains                       | -                                  | 403
            read   | GET    | /api/v1/domains/never-seen.example    | -                                  | 404
            worker | GET    | /api/v1/domains/never-seen.example    | -                                  | 403
            read   | POST   | /api/v1/domains/a.example/revive      | -                                  | 403
            worker | POST   | /api/v1/domains/a.example/revive      | -                                  | 403
            worker | POST   | /api/v1/domains/a.example/rate        | {"requestsPerSecond":2}            | 403
            admin  | POST   | /api/v1/domains/a.example/rate        | {}                                 | 400
            """)
    void aRoleMeetsARoute(String role, String method, String path, String body, int status) throws Exception {
        HttpResponse<String> answer = AdminCalls.as(HTTP, server, tokens.get(role), method, path, body);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(status);
        if (status == 403) {
            assertThat(answer.body()).as("names the token's role and the call").contains("(" + role + ")",
                    method + " " + path);
        }
        if (status == 405) {
            assertThat(answer.headers().firstValue("Allow")).isPresent();
        }
    }
}
