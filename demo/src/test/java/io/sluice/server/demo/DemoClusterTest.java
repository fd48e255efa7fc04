package io.sluice.server.demo;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.RealParts;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./sluice demo --cluster} without the console: a real redis-server, three nodes, the story over them. */
@RealParts
class DemoClusterTest {
    @TempDir
    Path root;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void threeNodesJoinShareTheirTokensAndEachServesPartOfTheDemoTraffic() throws Exception {
        try (DemoCluster demo = DemoCluster.start(root, 3, Duration.ofSeconds(30))) {
            await(() -> demo.nodes().stream().allMatch(n -> n.cluster().state() == ClusterState.HEALTHY
                    && n.cluster().status().nodes() == 3), "the three nodes to meet");
            await(() -> demo.nodes().stream().allMatch(n -> admitted(n) > 0), "traffic on every node");

            SluiceServer first = demo.nodes().get(0);
            SluiceServer third = demo.nodes().get(2);
            assertThat(third.adminToken()).isEqualTo(first.adminToken());
            HttpResponse<String> pause = http.send(HttpRequest.newBuilder(third.adminUri().resolve("/api/v1/pause"))
                    .header("Authorization", "Bearer " + first.adminToken())
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(pause.statusCode()).as(pause.body()).isEqualTo(200);
            await(() -> first.engine().policy().pause().all(), "the pause through node-3 on node-1");
        }
    }

    private static long admitted(SluiceServer node) {
        return node.engine().snapshot().totals().values().stream().mapToLong(ClassCounts::admitted).sum();
    }
}
