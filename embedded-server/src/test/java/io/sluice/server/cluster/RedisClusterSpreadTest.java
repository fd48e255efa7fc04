package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.TestRedisCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Many clients at once through one node on a 3-master Redis Cluster: their keys spread over the masters. */
class RedisClusterSpreadTest extends OneRedisPerClass {
    private static final int CLIENTS = 600;
    private static final int WAVE = 8;

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 0);
    }

    @AfterEach
    void stopAnswering() {
    }

    @Test
    void manyClientsKeysAreSpreadOverTheMastersAboutAThirdEach() throws Exception {
        SharedStoreNode shared = SharedStoreNode.start(cluster, "a");
        ThrottleEngine engine = shared.engine();
        RedisClientStateStore store = shared.store();
        ClusterNode node = shared.node();

        // Asked WAVE at a time (the site's own limit on requests in flight stays below its default): the admissions
        // of different slots go in their own lanes, side by side.
        for (int wave = 0; wave < CLIENTS; wave += WAVE) {
            List<CompletableFuture<Decision>> decisions = new ArrayList<>();
            for (int i = wave; i < wave + WAVE; i++) {
                Decision decision = engine.decide(Request.direct("10." + i / 250 + "." + i % 250 + ".7",
                        ClientStoreSpecification.CURL));
                decisions.add(decision instanceof Decision.Pending pending ? pending.decision().toCompletableFuture()
                        : CompletableFuture.completedFuture(decision));
            }
            for (CompletableFuture<Decision> decision : decisions) {
                ClientStoreSpecification.served(decision.get(30, TimeUnit.SECONDS));
            }
        }
        Await.await(() -> store.counts().get("leases") == 0 && !store.releasesPending(),
                "every lease given back");
        assertThat(node.state()).as("Redis answered every call").isEqualTo(ClusterState.HEALTHY);

        TestRedisCluster redisCluster = (TestRedisCluster) server;
        List<Long> perMaster = redisCluster.masters().stream().map(TestRedisCluster::keys).toList();
        long total = perMaster.stream().mapToLong(Long::longValue).sum();
        // each client's hit stack and its address's (distinct addresses), besides the fleet's few keys
        assertThat(total).isGreaterThanOrEqualTo(2L * CLIENTS);
        for (long keys : perMaster) {
            assertThat((double) keys / total).as("a master's share of " + perMaster).isBetween(0.25, 0.42);
        }
    }
}
