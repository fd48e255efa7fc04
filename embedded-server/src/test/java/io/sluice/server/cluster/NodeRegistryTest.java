package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fleet: nodes publish their load, read each other's, and see a silent node as unreachable. */
class NodeRegistryTest extends OneRedisPerClass {
    private static ClusterFixture.FixedLoad load(long inFlight, long second, long admitted, long refused) {
        ClusterFixture.FixedLoad load = new ClusterFixture.FixedLoad(inFlight);
        load.seconds = List.of(new SecondCounts(second, Map.of(RequestClass.BOT,
                new ClassCounts(admitted, 0, Map.of(Reason.HIT_STACK, refused)))));
        return load;
    }

    @Test
    @DiffersOnACluster("nodes-read.lua reads the node hashes it finds: they share the fleet's slot")
    void everyNodeSeesTheOthersInFlightAndTheViewListsEveryNodeWithTheClusterTotals() {
        ClusterNode a = cluster.node("a", load(3, 1_000, 10, 1));
        ClusterNode b = cluster.node("b", load(5, 1_000, 20, 2));
        ClusterNode c = cluster.node("c", load(7, 1_001, 30, 0));

        ClusterFixture.awaitState(a, ClusterState.HEALTHY);
        await(() -> a.othersInFlight() == 12 && b.othersInFlight() == 10 && c.othersInFlight() == 8,
                "every node to read the others' in-flight counts");
        assertThat(a.status().nodes()).isEqualTo(3);
        assertThat(a.status().inFlight()).isEqualTo(15);
        await(() -> a.view().nodes().stream().allMatch(n -> !n.seconds().isEmpty() && n.state() == NodeState.HEALTHY),
                "every node to report healthy, with its per-second counts");

        ClusterView view = a.view();
        assertThat(view.answeredBy()).isEqualTo("a");
        assertThat(view.state()).isEqualTo(ClusterState.HEALTHY);
        assertThat(view.stale()).isFalse();
        assertThat(view.nodes()).extracting(NodeView::name).containsExactly("a", "b", "c");
        assertThat(view.nodes()).extracting(NodeView::state).containsOnly(NodeState.HEALTHY);
        assertThat(view.nodes()).extracting(NodeView::admin).containsExactly("http://127.0.0.1:1/a",
                "http://127.0.0.1:1/b", "http://127.0.0.1:1/c");
        assertThat(view.totals().reachable()).isEqualTo(3);
        assertThat(view.totals().inFlight()).isEqualTo(15);
        assertThat(view.totals().seconds()).containsExactly(
                new SecondCounts(1_000, Map.of(RequestClass.BOT, new ClassCounts(30, 0, Map.of(Reason.HIT_STACK,
                        3L)))),
                new SecondCounts(1_001, Map.of(RequestClass.BOT, new ClassCounts(30, 0, Map.of(Reason.HIT_STACK,
                        0L)))));
    }

    @Test
    void aNodeThatFallsSilentIsShownUnreachableAndLeavesTheClusterLoad() {
        ClusterNode a = cluster.node("a", load(3, 1_000, 1, 0));
        ClusterNode b = cluster.node("b", load(5, 1_000, 1, 0));
        await(() -> a.othersInFlight() == 5, "a to see b");

        cluster.stop(b);

        await(() -> a.othersInFlight() == 0, "b's load to leave the cluster's");
        ClusterView view = a.view();
        assertThat(view.nodes()).extracting(NodeView::name).containsExactly("a", "b");
        assertThat(view.nodes().get(0).state()).isNotEqualTo(NodeState.UNREACHABLE);
        assertThat(view.nodes().get(1).state()).isEqualTo(NodeState.UNREACHABLE);
        assertThat(view.nodes().get(1).inFlight()).as("its last report is still shown").isEqualTo(5);
        assertThat(view.totals().nodes()).isEqualTo(2);
        assertThat(view.totals().reachable()).isEqualTo(1);
        assertThat(view.totals().inFlight()).isEqualTo(3);
        assertThat(a.status().nodes()).isEqualTo(1);
    }

    @Test
    void whenRedisIsGoneTheViewIsTheLastOneReadMarkedStale() {
        ClusterNode a = cluster.node("a", load(3, 1_000, 1, 0));
        cluster.node("b", load(5, 1_000, 1, 0));
        await(() -> a.othersInFlight() == 5, "a to see b");

        redis.kill();
        ClusterFixture.awaitState(a, ClusterState.DEGRADED);

        ClusterView view = a.view();
        assertThat(view.stale()).isTrue();
        assertThat(view.state()).isEqualTo(ClusterState.DEGRADED);
        assertThat(view.nodes()).extracting(NodeView::name).containsExactly("a", "b");
        assertThat(a.status().nodes()).as("limits scale to the nodes last seen").isEqualTo(2);
        redis.restartEmpty();
    }
}
