package io.sluice.server.cluster;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.RedisUnderTest;
import io.sluice.server.testkit.TestRedis;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The specification on the cluster's Redis store: each node its own engine, store and links, one redis-server. */
@RealParts
class RedisStoreSpecTest extends ClientStoreSpecification {
    private static final Duration LEASE = Duration.ofSeconds(35);
    private final Map<String, ThrottleEngine> nodes = new HashMap<>();
    private final OneRedisPerClassHolder holder = new OneRedisPerClassHolder();

    @BeforeAll
    static void startRedis() {
        OneRedisPerClassHolder.start();
    }

    @AfterAll
    static void stopRedis() {
        OneRedisPerClassHolder.stop();
    }

    @BeforeEach
    void clean() {
        holder.clean();
    }

    @AfterEach
    void stopNodes() {
        holder.cluster.close();
    }

    @Override
    ThrottleEngine startNode(String name, Policy policy) {
        return nodes.computeIfAbsent(name, n -> {
            RedisClientStateStore store = new RedisClientStateStore(ClusterFixture.PATIENT, LEASE);
            ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, CLASSIFIER, null, store);
            ClusterNode node = holder.cluster.node(n, new EngineLoad(engine), ClusterFixture.PATIENT);
            node.shareClientState(store);
            ClusterFixture.awaitState(node, ClusterState.HEALTHY);
            return engine;
        });
    }

    @Override
    Collection<ThrottleEngine> nodes() {
        return nodes.values();
    }

    @Override
    void passTime(Duration duration) {
        pause(duration.toMillis());
        clock.advance(duration);
    }

    @Override
    void alignToASecond() {
        pause(1_000 - System.currentTimeMillis() % 1_000 + 50);
    }

    /**
     * One redis-server for the class, emptied before each test (as {@link OneRedisPerClass}, a base class); a
     * subclass hiding {@link #startRedis()} may set a Redis Cluster instead.
     */
    static final class OneRedisPerClassHolder {
        static RedisUnderTest redis;
        ClusterFixture cluster;

        static void start() {
            redis = TestRedis.start();
        }

        static void stop() {
            redis.close();
        }

        void clean() {
            redis.reset();
            cluster = new ClusterFixture(redis);
        }
    }
}
