package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.RequestClass;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.hostile.LoopbackClient;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.Servers;
import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster-wide truth: what the fleet view ({@code GET /api/v1/cluster}) says happened is what the nodes' access logs
 * say happened, class by class and outcome by outcome, after a mixed run spread over three nodes: nothing counted
 * twice, nothing lost between a node's counts and Redis.
 */
@RealParts
class FleetTotalsTest {
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    private static final String GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    private static final String CRAWLER_ADDRESS = "127.0.7.1";
    /** The access log's user agent and decision: {@code "UA" sluice=DECISION} ends every line. */
    private static final Pattern LOGGED = Pattern.compile("\"([^\"]*)\" sluice=(\\S+)$");

    @TempDir
    Path dir;
    @RegisterExtension
    final Servers servers = new Servers();
    private final List<SluiceServer> nodes = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();
    private TestRedis redis;

    /** A visitor: its address, its user agent, how many requests it sends (spread round the nodes). */
    private record Visitor(String address, String userAgent, RequestClass requestClass, int requests) {
    }

    @Test
    void theFleetViewsTotalsAreTheSumOfEveryNodesAccessLogByClassAndOutcome() throws Exception {
        redis = servers.add(TestRedis.start());
        for (int i = 1; i <= 3; i++) {
            node("web-" + i);
        }
        await(() -> nodes.stream().allMatch(n -> n.cluster().state() == ClusterState.HEALTHY
                && n.cluster().status().nodes() == 3), "the three nodes to meet");

        List<Visitor> visitors = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            visitors.add(new Visitor("127.0.5." + i, FIREFOX, RequestClass.BROWSER, 13)); // beyond 10 in 15 s
        }
        visitors.add(new Visitor("127.0.6.1", "curl/8.5.0", RequestClass.BOT, 25));
        visitors.add(new Visitor("127.0.6.2", "python-requests/2.32.3", RequestClass.BOT, 8));
        visitors.add(new Visitor("127.0.6.3", GOOGLEBOT, RequestClass.BOT, 4)); // a claim from an unlisted address
        visitors.add(new Visitor(CRAWLER_ADDRESS, GOOGLEBOT, RequestClass.CRAWLER, 4)); // verified: spaced
        int sent = 0;
        for (Visitor visitor : visitors) {
            sent += visit(visitor);
        }

        Map<String, Long> logged = new TreeMap<>();
        AtomicReference<Map<String, Long>> fleet = new AtomicReference<>();
        int requests = sent;
        await(() -> {
            logged.clear();
            logged.putAll(fromAccessLogs(visitors));
            fleet.set(fromFleetView(nodes.get(1)));
            return logged.values().stream().mapToLong(Long::longValue).sum() == requests
                    && fleet.get().equals(logged);
        }, "the fleet view to count what the access logs hold");

        assertThat(fleet.get()).isEqualTo(logged);
        assertThat(logged).containsKeys("BROWSER ADMIT", "BROWSER REFUSE:HIT_STACK", "BOT ADMIT", "CRAWLER ADMIT");
        assertThat(logged.keySet()).anyMatch(outcome -> outcome.startsWith("CRAWLER REFUSE:"));
    }

    /** A node of the demo site's cluster with an access log, its crawler verified at {@link #CRAWLER_ADDRESS}. */
    private void node(String name) throws Exception {
        Path state = dir.resolve(name);
        StateDirectory directory = StateDirectory.open(state, null);
        Policy policy = directory.loadPolicy();
        Policy.Crawlers crawlers = policy.crawlers();
        String crawler = CrawlerListClassifier.bundled().classify(GOOGLEBOT, policy.classification()).crawlerName();
        directory.savePolicy(policy.withCrawlers(new Policy.Crawlers(crawlers.perCrawlerSeconds(),
                crawlers.allCrawlersSeconds(), true, Map.of(crawler, List.of(CRAWLER_ADDRESS + "/32")))));
        ServerConfig config = new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("127.0.0.1", 0),
                state, null, true, false, dir.resolve(name + ".log").toString(), ServerConfig.DEFAULT_UPSTREAM_TIMEOUT,
                null).withCluster(new ClusterOptions(redis.endpoint(), name));
        nodes.add(servers.start(config));
    }

    /** The visitor's requests, round the nodes in turn, one connection to each; how many were answered. */
    private int visit(Visitor visitor) throws IOException {
        List<LoopbackClient> connections = new ArrayList<>();
        try {
            for (SluiceServer node : nodes) {
                connections.add(new LoopbackClient(visitor.address(), node.frontUri()));
            }
            for (int n = 0; n < visitor.requests(); n++) {
                int status = connections.get(n % connections.size()).get("/page/" + n, visitor.userAgent());
                assertThat(status).as(visitor + " request " + n).isPositive();
            }
            return visitor.requests();
        } finally {
            for (LoopbackClient connection : connections) {
                connection.close();
            }
        }
    }

    /** "CLASS DECISION" -> requests, over every node's access log; the class is the visitor's. */
    private Map<String, Long> fromAccessLogs(List<Visitor> visitors) {
        Map<String, Long> counts = new TreeMap<>();
        for (int i = 1; i <= nodes.size(); i++) {
            Path log = dir.resolve("web-" + i + ".log");
            List<String> lines;
            try {
                lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            } catch (IOException e) {
                return Map.of();
            }
            for (String line : lines) {
                Matcher matcher = LOGGED.matcher(line);
                assertThat(matcher.find()).as(line).isTrue();
                String address = line.substring(0, line.indexOf(' '));
                RequestClass requestClass = visitors.stream().filter(v -> v.address().equals(address))
                        .findFirst().orElseThrow().requestClass();
                counts.merge(requestClass + " " + matcher.group(2), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** "CLASS DECISION" -> requests, added up over the fleet view's seconds, in the access log's words. */
    private Map<String, Long> fromFleetView(SluiceServer asked) {
        JsonNode view;
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(asked.adminUri()
                    .resolve(URI.create("/api/v1/cluster"))).header("Authorization", "Bearer " + asked.adminToken())
                    .build(), HttpResponse.BodyHandlers.ofString());
            view = PolicyJson.mapper().readTree(response.body());
        } catch (IOException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
        Map<String, Long> counts = new TreeMap<>();
        for (JsonNode second : view.path("totals").path("seconds")) {
            for (Map.Entry<String, JsonNode> entry : second.path("byClass").properties()) {
                JsonNode outcome = entry.getValue();
                add(counts, entry.getKey() + " ADMIT", outcome.path("admitted").asLong());
                add(counts, entry.getKey() + " DELAYED", outcome.path("delayed").asLong());
                for (Map.Entry<String, JsonNode> refusal : outcome.path("refused").properties()) {
                    add(counts, entry.getKey() + " REFUSE:" + refusal.getKey(), refusal.getValue().asLong());
                }
            }
        }
        return counts;
    }

    private static void add(Map<String, Long> counts, String key, long value) {
        if (value > 0) {
            counts.merge(key, value, Long::sum);
        }
    }
}
