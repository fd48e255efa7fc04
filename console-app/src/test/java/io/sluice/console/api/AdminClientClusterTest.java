package io.sluice.console.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.testkit.SmallCluster;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import io.sluice.server.testkit.RealParts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster calls of the admin client against real front ends in cluster mode on a real redis-server. */
@RealParts
class AdminClientClusterTest {
    private static SmallCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = SmallCluster.start("web-1", "web-2");
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void anyNodeListsEveryNodeWithItsStateAndTheTotals() throws Exception {
        AdminClient client = cluster.client("web-2");
        Fleet fleet = Await.value(Duration.ofSeconds(15), () -> client.cluster().filter(f -> f.nodes().size() == 2
                && f.nodes().stream().allMatch(n -> n.state() == FleetNode.State.HEALTHY)), "both nodes healthy");

        assertThat(fleet.answeredBy()).isEqualTo("web-2");
        assertThat(fleet.state()).isEqualTo(ClusterState.HEALTHY);
        assertThat(fleet.stale()).isFalse();
        assertThat(fleet.redis()).startsWith("redis://127.0.0.1:");
        assertThat(fleet.nodes()).extracting(FleetNode::name).containsExactlyInAnyOrder("web-1", "web-2");
        assertThat(fleet.nodes()).allSatisfy(node -> {
            assertThat(node.admin()).startsWith("http://127.0.0.1:");
            assertThat(node.lastHeard()).isNotNull();
            assertThat(node.policyVersion()).isPositive();
        });
        assertThat(fleet.totals().nodes()).isEqualTo(2);
        assertThat(fleet.totals().reachable()).isEqualTo(2);
    }

    @Test
    void healthSaysHowTheAnsweringNodeStands() throws Exception {
        AdminClient client = cluster.client("web-1");
        NodeHealth health = Await.value(Duration.ofSeconds(15), () -> client.health()
                .filter(h -> h.state() == ClusterState.HEALTHY && h.reachableNodes() == 2), "web-1 healthy with 2");
        assertThat(health.node()).isEqualTo("web-1");
        assertThat(health.redis()).startsWith("redis://");
        assertThat(health.since()).isNotNull();
    }

    @Test
    void aServerRunningAloneHasNoFleet(@TempDir Path state) throws Exception {
        try (SluiceServer alone = Demo.start(ServerConfig.demo(state))) {
            AdminClient client = new AdminClient(alone.adminUri(), alone.adminToken(), "tester");
            assertThat(client.cluster()).isEqualTo(Optional.empty());
            assertThat(client.health()).isEqualTo(Optional.empty());
        }
    }
}
