package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.AdminOptions;
import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.state.StateDirectory;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.Servers;
import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Two real front ends in cluster mode on one real redis-server, through their admin APIs. */
@RealParts
class ClusterServerTest {
    @TempDir
    Path stateA;
    @TempDir
    Path stateB;

    @RegisterExtension
    final Servers servers = new Servers();
    private final HttpClient http = HttpClient.newHttpClient();
    private TestRedis redis;

    @BeforeEach
    void startRedis() {
        redis = servers.add(TestRedis.start());
    }

    private SluiceServer node(Path state, String name) throws Exception {
        return servers.start(ServerConfig.demo(state)
                .withCluster(new ClusterOptions(redis.endpoint(), name)));
    }

    private HttpResponse<String> get(SluiceServer server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve(path))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(SluiceServer server, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve(path))
                .header("Authorization", "Bearer " + server.adminToken()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The front end's status for one request, or -1 when it did not answer (for polling). */
    private int front(SluiceServer server, String userAgent) {
        try {
            return http.send(HttpRequest.newBuilder(server.frontUri().resolve("/")).header("User-Agent", userAgent)
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static long count(SluiceServer server, String action) {
        return server.state().audit().newestFirst(100).stream().filter(e -> e.action().equals(action)).count();
    }

    private JsonNode json(SluiceServer server, String path) throws Exception {
        HttpResponse<String> response = get(server, path);
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return PolicyJson.mapper().readTree(response.body());
    }

    @Test
    void anyNodeListsTheFleetAndItsSnapshotSaysWhoAnswered() throws Exception {
        SluiceServer a = node(stateA, "web-1");
        SluiceServer b = node(stateB, "web-2");
        await(() -> a.cluster().status().nodes() == 2 && b.cluster().status().nodes() == 2
                && a.cluster().state() == ClusterState.HEALTHY && b.cluster().state() == ClusterState.HEALTHY,
                "both nodes to meet");

        JsonNode fleet = json(b, "/api/v1/cluster");
        JsonNode health = json(a, "/api/v1/health");
        Snapshot snapshot = PolicyJson.mapper().readValue(get(a, "/api/v1/snapshot").body(), Snapshot.class);
        String metrics = get(a, "/metrics").body();
        HttpResponse<String> withoutToken = http.send(HttpRequest.newBuilder(a.adminUri().resolve("/api/v1/cluster"))
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(fleet.get("answeredBy").asText()).isEqualTo("web-2");
        assertThat(fleet.get("state").asText()).isEqualTo("HEALTHY");
        assertThat(fleet.get("nodes").findValuesAsText("name")).containsExactly("web-1", "web-2");
        assertThat(fleet.get("nodes").get(0).get("admin").asText()).isEqualTo(a.adminUri().toString());
        assertThat(fleet.get("totals").get("reachable").asInt()).isEqualTo(2);
        assertThat(health.get("node").asText()).isEqualTo("web-1");
        assertThat(health.get("state").asText()).isEqualTo("HEALTHY");
        assertThat(health.get("redis").asText()).isEqualTo(redis.endpoint().toString());
        assertThat(snapshot.cluster().node()).isEqualTo("web-1");
        assertThat(snapshot.cluster().state()).isEqualTo(ClusterState.HEALTHY);
        assertThat(snapshot.cluster().nodes()).isEqualTo(2);
        assertThat(metrics).contains("sluice_cluster_degraded 0.0", "sluice_cluster_nodes 2.0");
        assertThat(withoutToken.statusCode()).isEqualTo(401);
    }

    @Test
    void aNodeListeningOnEveryInterfaceAdvertisesAnAddressTheFleetCanUseNotLoopback() throws Exception {
        assumeTrue(AdvertisedAddress.firstInterfaceAddress() != null, "an address other than loopback");
        AdminOptions insecure = new AdminOptions(false, null, true, Set.of(), AdminOptions.DEFAULTS.auditMaxBytes(),
                AdminOptions.DEFAULTS.auditKeep());
        SluiceServer a = servers.start(new ServerConfig(new HostPort("127.0.0.1", 0), null, new HostPort("0.0.0.0", 0),
                stateA, null, true, false, null, ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null)
                .withAdminOptions(insecure).withCluster(new ClusterOptions(redis.endpoint(), "web-1")));
        await(() -> a.cluster().state() == ClusterState.HEALTHY && a.cluster().status().nodes() == 1,
                "web-1 in the fleet");

        URI advertised = URI.create(json(a, "/api/v1/cluster").get("nodes").get(0).get("admin").asText());
        InetAddress host = InetAddress.getByName(advertised.getHost());

        assertThat(host.isLoopbackAddress()).as(advertised + ": another node or a console would find itself there")
                .isFalse();
        assertThat(NetworkInterface.getByInetAddress(host)).as(advertised + ": an address of this machine")
                .isNotNull();
        assertThat(advertised.getPort()).isEqualTo(a.adminUri().getPort());
        HttpResponse<String> there = http.send(HttpRequest.newBuilder(advertised.resolve("/api/v1/health"))
                .header("Authorization", "Bearer " + a.adminToken()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(there.statusCode()).as("the node answers there").isEqualTo(200);
    }

    @Test
    void aChangeThroughOneNodeIsInForceOnTheOtherAndOnItsDiskSoItStartsWithItWhileRedisIsDown() throws Exception {
        SluiceServer a = node(stateA, "web-1");
        SluiceServer b = node(stateB, "web-2");
        await(() -> a.cluster().state() == ClusterState.HEALTHY, "web-1 to reach Redis");
        Policy tighter = SharedPolicyTest.withMaxHits(a.engine().policy(), 4);
        await(() -> a.cluster().policy().compareAndSet(a.engine().policy().version(), tighter,
                SharedPolicyTest.audit("alice", "maxHits 10 -> 4")) instanceof SharedPolicy.Applied, "the change");

        // web-2's audit may hold its first sync already: what is awaited is the change's own entry
        await(() -> b.state().audit().newestFirst(1).stream().anyMatch(e -> "maxHits 10 -> 4".equals(e.detail())),
                "web-2 to apply the change and audit it");
        assertThat(b.engine().policy().version()).isEqualTo(a.engine().policy().version());
        assertThat(b.engine().policy().hitStack().maxHits()).isEqualTo(4);
        assertThat(StateDirectory.open(stateB, null).loadPolicy().hitStack().maxHits()).isEqualTo(4);
        assertThat(a.state().audit().newestFirst(1).get(0).who()).isEqualTo("alice");

        servers.stop(b);
        redis.kill();
        SluiceServer again = node(stateB, "web-2");

        assertThat(again.engine().policy().hitStack().maxHits()).isEqualTo(4);
        assertThat(again.cluster().state()).isEqualTo(ClusterState.DEGRADED);
        assertThat(json(again, "/api/v1/health").get("state").asText()).isEqualTo("DEGRADED");
        assertThat(get(again, "/metrics").body()).contains("sluice_cluster_degraded 1.0");
        assertThat(URI.create(json(again, "/api/v1/cluster").get("redis").asText()).getPort())
                .isEqualTo(redis.port());
    }

    @Test
    void aBanThroughANodeOfARedisRestartedEmptySeedsTheClusterPolicyFirstAndHoldsOnEveryNode() throws Exception {
        SluiceServer a = node(stateA, "web-1");
        SluiceServer b = node(stateB, "web-2");
        await(() -> a.cluster().state() == ClusterState.HEALTHY && b.cluster().state() == ClusterState.HEALTHY
                && a.cluster().status().nodes() == 2 && b.cluster().status().nodes() == 2, "both nodes to meet");
        long before = a.engine().policy().version();
        assertThat(b.engine().policy().version()).isEqualTo(before);

        // No node has put its policy back yet: the operator's ban is the first thing Redis hears of.
        redis.restartEmpty();
        HttpResponse<String> ban = post(a, "/api/v1/bans",
                "{\"type\": \"agent\", \"value\": \"SiteCopier\", \"reason\": \"copying the site\"}");

        assertThat(ban.statusCode()).as(ban.body()).isEqualTo(201);
        assertThat(front(a, "SiteCopier/2.0")).as("the node that made it, at once").isEqualTo(403);
        await(() -> front(b, "SiteCopier/2.0") == 403, "the ban in force on web-2");
        // One history: the node's policy seeded as the version it was, the ban the next, on both nodes and in Redis.
        for (SluiceServer node : List.of(a, b)) {
            assertThat(node.engine().policy().version()).as(node.cluster().name()).isEqualTo(before + 1);
            await(() -> count(node, "ban.add") == 1, "the ban in the audit of " + node.cluster().name());
            assertThat(StateDirectory.open(node.state().path(), null).loadPolicy().bans())
                    .extracting(Ban::value).containsExactly("SiteCopier");
        }
        assertThat(redis.command("HGET", ClusterSettings.DEFAULTS.fleetKey("policy"), "version"))
                .isEqualTo(Long.toString(before + 1));
        assertThat(front(b, "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")).isEqualTo(200);
    }

    @Test
    void aNodeStartedWithItsOwnClusterSettingsRunsOnThemNotTheDefaults() throws Exception {
        ClusterSettings shop = ClusterFixture.PATIENT.withKeyPrefix("shop:");
        SluiceServer a = servers.start(ServerConfig.demo(stateA)
                .withCluster(new ClusterOptions(redis.endpoint(), "web-1", shop)));
        await(() -> a.cluster().state() == ClusterState.HEALTHY, "web-1 to reach Redis");

        assertThat(front(a, "curl/8.5.0")).isEqualTo(200);

        await(() -> keys("shop:{127.0.0.1}:m:*") == 1, "the client's hit stack under shop:");
        assertThat(keys(shop.fleetKey("policy"))).isEqualTo(1);
        assertThat(keys(ClusterSettings.DEFAULTS.keyPrefix() + "*")).isZero();
    }

    private long keys(String pattern) throws IOException {
        return Long.parseLong(redis.command("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", pattern));
    }
}
