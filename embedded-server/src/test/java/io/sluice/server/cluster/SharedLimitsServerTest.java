package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.RedisUnderTest;
import io.sluice.server.testkit.Servers;
import io.sluice.server.testkit.TestRedis;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Two real front ends started with {@code --redis}: one client's requests spread over both share one hit stack. */
@RealParts
class SharedLimitsServerTest {
    @TempDir
    Path stateA;
    @TempDir
    Path stateB;

    @RegisterExtension
    final Servers servers = new Servers();
    private final HttpClient http = HttpClient.newHttpClient();
    private RedisUnderTest redis;

    @BeforeEach
    void startRedis() {
        redis = servers.add(newRedis());
    }

    /** The Redis the front ends share: one redis-server here, a Redis Cluster in a subclass. */
    RedisUnderTest newRedis() {
        return TestRedis.start();
    }

    /**
     * Patient timings: what is tested is that the nodes share one hit stack, not the deadline; with the production
     * 50 ms, a CI run beside two others saw a node go degraded mid-test and judge the eleventh request alone.
     */
    private SluiceServer node(Path state, String name) throws Exception {
        return servers.start(ServerConfig.demo(state)
                .withCluster(new ClusterOptions(redis.endpoint(), name, ClusterFixture.PATIENT)));
    }

    private HttpResponse<String> get(SluiceServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(server.frontUri().resolve("/")).header("User-Agent", "curl/8.5.0")
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theEleventhRequestIsRefusedOnWhicheverFrontEndItReaches() throws Exception {
        SluiceServer a = node(stateA, "a");
        SluiceServer b = node(stateB, "b");
        await(() -> a.cluster().state() == ClusterState.HEALTHY && b.cluster().state() == ClusterState.HEALTHY,
                "both nodes to reach Redis");

        for (int i = 0; i < 10; i++) {
            assertThat(get(i % 2 == 0 ? a : b).statusCode()).as("request %d", i + 1).isEqualTo(200);
        }
        HttpResponse<String> eleventh = get(a);
        HttpResponse<String> twelfth = get(b);

        assertThat(eleventh.statusCode()).isEqualTo(503);
        assertThat(eleventh.headers().firstValue("Retry-After")).isPresent();
        assertThat(twelfth.statusCode()).isEqualTo(503);
        assertThat(a.engine().snapshot().cluster().state()).isEqualTo(ClusterState.HEALTHY);
    }
}
