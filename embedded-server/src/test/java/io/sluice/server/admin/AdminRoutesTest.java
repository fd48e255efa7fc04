package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.cluster.ClusterHandler;
import io.sluice.server.state.Role;
import io.sluice.server.testkit.Servers;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Walks every route the admin API maps (the cluster's included) and checks what each declares against what it
 * serves and what the manual says: a route added later without a role for one of its methods, a method served
 * but not declared, or a route the manual's roles table does not show, fails here.
 */
class AdminRoutesTest {
    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH");
    private static final Set<String> WORKER_CALLS = Set.of("POST /api/v1/permits", "POST /api/v1/feedback");

    @TempDir
    static Path state;
    @RegisterExtension
    static final Servers SERVERS = new Servers();

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static SluiceServer server;
    private static List<Route> routes;
    private static Map<Role, String> tokens;

    @BeforeAll
    static void start() throws Exception {
        server = SERVERS.start(ServerConfig.demo(state));
        // The same assembly as the server's (the cluster's routes too, which a single node does not mount).
        routes = new AdminHandler(server.engine(), server.governor(), null, server.state(), server.policyChanges(),
                InstantSource.system(), ClusterHandler.routes(() -> null), Set.of()).routes();
        tokens = Map.of(Role.ADMIN, server.adminToken(),
                Role.READ, AdminCalls.addToken(HTTP, server, "dashboard", "read"),
                Role.WORKER, AdminCalls.addToken(HTTP, server, "crawler", "worker"));
    }

    @Test
    void everyRouteDeclaresARoleForEveryMethodItAllows() {
        assertThat(routes).hasSizeGreaterThan(20);
        for (Route route : routes) {
            Access access = route.resource().access();
            assertThat(access.methods()).as(route.declaration()).isNotEmpty();
            for (String method : access.methods()) {
                assertThat(access.role(method)).as(method + " " + route.declaration()).isNotNull();
            }
        }
        assertThat(routes.stream().map(Route::declaration).distinct()).as("one route per path")
                .hasSameSizeAs(routes);
    }

    @Test
    void readOpensEveryGetButTheTokensAndWorkerOnlyThePermitCalls() {
        List<String> read = new ArrayList<>();
        List<String> worker = new ArrayList<>();
        for (Route route : routes) {
            for (Access.Rule rule : route.resource().access().rules()) {
                String call = rule.method() + " " + route.declaration();
                boolean tokens = route.declaration().startsWith(Route.PREFIX + "tokens");
                assertThat(rule.role() == Role.READ).as(call).isEqualTo("GET".equals(rule.method()) && !tokens);
                if (rule.role() == Role.READ) {
                    read.add(call);
                } else if (rule.role() == Role.WORKER) {
                    worker.add(call);
                }
            }
        }
        assertThat(worker).containsExactlyInAnyOrderElementsOf(WORKER_CALLS);
        assertThat(read).contains("GET /metrics", "GET /api/v1/snapshot", "GET /api/v1/cluster",
                "GET /api/v1/domains/{domain}");
    }

    @Test
    void overHttpAMethodARouteLacksIs405WithItsAllowAndARoleItLacksIs403() throws Exception {
        for (Route route : routes) {
            if (route.resource() instanceof ClusterHandler) {
                continue; // mounted in cluster mode only (ClusterServerTest calls them)
            }
            String path = route.declaration().replace("{id}", "no-such-ban").replace("{name}", "nobody")
                    .replace("{domain}", "walk.example");
            Access access = route.resource().access();
            for (String method : METHODS) {
                Role declared = access.role(method);
                if (declared == null) {
                    HttpResponse<String> answer = AdminCalls.as(HTTP, server, tokens.get(Role.ADMIN), method, path,
                            null);
                    assertThat(answer.statusCode()).as(method + " " + path).isEqualTo(405);
                    assertThat(answer.headers().firstValue("Allow")).as(method + " " + path)
                            .hasValue(String.join(", ", access.methods()));
                    continue;
                }
                for (Role role : List.of(Role.READ, Role.WORKER)) {
                    if (role != declared) {
                        assertThat(AdminCalls.as(HTTP, server, tokens.get(role), method, path, null).statusCode())
                                .as(role + " " + method + " " + path).isEqualTo(403);
                    }
                }
            }
        }
    }

    @Test
    void theManualsTableSaysWhatEveryRouteDeclares() throws Exception {
        Map<String, Role> declared = new TreeMap<>();
        for (Route route : routes) {
            route.resource().access().rules().forEach(rule ->
                    declared.put(rule.method() + " " + route.declaration(), rule.role()));
        }

        assertThat(manualsTable()).as("the roles table in docs/manual/admin-api.md").isEqualTo(declared);
    }

    /** The table under "Endpoints" in docs/manual/admin-api.md: a row's paths, then a role or nothing per method. */
    private static Map<String, Role> manualsTable() throws Exception {
        Map<String, Role> table = new TreeMap<>();
        List<String> methods = null;
        for (String line : Files.readAllLines(manual())) {
            List<String> cells = Arrays.stream(line.split("\\|", -1)).map(String::trim).toList();
            if (line.startsWith("| Path |")) {
                methods = cells.subList(2, cells.size() - 1).stream().map(cell -> cell.replace("`", "")).toList();
            } else if (methods != null && line.startsWith("| `/")) {
                Matcher paths = Pattern.compile("`(/[^`]*)`").matcher(cells.get(1));
                while (paths.find()) {
                    for (int i = 0; i < methods.size(); i++) {
                        String role = cells.get(2 + i);
                        if (!role.isEmpty()) {
                            table.put(methods.get(i) + " " + paths.group(1), Role.parse(role));
                        }
                    }
                }
            }
        }
        return table;
    }

    private static Path manual() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path manual = dir.resolve("docs/manual/admin-api.md");
            if (Files.isRegularFile(manual)) {
                return manual;
            }
        }
        throw new IllegalStateException("no docs/manual/admin-api.md above " + Path.of("").toAbsolutePath());
    }

    @Test
    void aRoleIsDeclaredWithEveryMethodAndReadOnlyOnReads() {
        assertThatThrownBy(() -> Access.of("GET", null)).hasMessageContaining("without a role");
        assertThatThrownBy(() -> Access.of("POST", Role.READ)).hasMessageContaining("cannot be opened to read");
        assertThatThrownBy(() -> Access.of("GET", Role.READ).and("GET", Role.ADMIN))
                .hasMessageContaining("declared twice");
        assertThat(Access.of("GET", Role.READ).and("PUT", Role.ADMIN).methods()).containsExactly("GET", "PUT");
    }
}
