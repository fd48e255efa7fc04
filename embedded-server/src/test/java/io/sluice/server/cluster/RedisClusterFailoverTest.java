package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.TestRedisCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A master of a Redis Cluster (3 masters, 3 replicas) killed while a node serves: every request is still decided
 * within its deadline (alone, DEGRADED, while the master's slots are down), and the node is HEALTHY again, deciding
 * in Redis, once a replica has taken the slots over.
 */
class RedisClusterFailoverTest extends OneRedisPerClass {
    private static final Duration DEADLINE = ClusterFixture.PATIENT.deadline();

    @BeforeAll
    static void startRedis() {
        redis = null;
        server = TestRedisCluster.start(3, 1);
    }

    @AfterEach
    void stopAnswering() {
    }

    @Test
    void aMasterKilledMidRunLeavesTheNodeServingDegradedUntilItsReplicaTakesOver() throws Exception {
        SharedStoreNode shared = SharedStoreNode.start(cluster, "a");
        ThrottleEngine engine = shared.engine();
        RedisClientStateStore store = shared.store();
        ClusterNode node = shared.node();
        serveRound(engine, 0);
        long beforeKill = store.commandsSent();
        assertThat(beforeKill).as("decided in Redis").isPositive();

        ((TestRedisCluster) server).masters().get(0).kill();

        AtomicBoolean sawDegraded = new AtomicBoolean();
        AtomicInteger round = new AtomicInteger(1);
        // requests served all along: the node sees the master gone, then a replica in its place
        Await.within(Duration.ofSeconds(60), () -> {
            serveRound(engine, round.getAndIncrement());
            if (node.state() == ClusterState.DEGRADED) {
                sawDegraded.set(true);
            }
            return sawDegraded.get() && node.state() == ClusterState.HEALTHY;
        });
        assertThat(sawDegraded).as("DEGRADED while the master's slots were down").isTrue();
        String topology = node.state() == ClusterState.HEALTHY ? ""
                : ((TestRedisCluster) server).nodesAsSeenBy(((TestRedisCluster) server).masters().get(1));
        assertThat(node.state()).as("HEALTHY once a replica took over (waited 60 s); CLUSTER NODES:%n%s", topology)
                .isEqualTo(ClusterState.HEALTHY);

        long healthyAgain = store.commandsSent();
        serveRound(engine, round.get());
        assertThat(store.commandsSent()).as("deciding in Redis again, every slot included")
                .isGreaterThan(healthyAgain);
        assertThat(node.state()).isEqualTo(ClusterState.HEALTHY);
    }

    /** 30 clients (addresses over every master), each served once; every decision within the deadline. */
    private static void serveRound(ThrottleEngine engine, int round) throws Exception {
        for (int i = 0; i < 30; i++) {
            long start = System.nanoTime();
            Decision decision = engine.decide(Request.direct("10.1." + round % 250 + "." + i,
                    ClientStoreSpecification.CURL));
            if (decision instanceof Decision.Pending pending) {
                decision = pending.decision().toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            // the deadline, and time for a busy machine to hand the answer over
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DEADLINE.plusSeconds(2));
            ClientStoreSpecification.served(decision);
        }
    }
}
