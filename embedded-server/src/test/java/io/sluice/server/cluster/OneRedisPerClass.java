package io.sluice.server.cluster;

import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.RedisUnderTest;
import io.sluice.server.testkit.TestRedis;
import io.sluice.server.testkit.TestRedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One redis-server for the test class, emptied before each test; each test's nodes closed after it. A subclass runs
 * its parent's tests on a Redis Cluster instead by hiding {@link #startRedis()} with its own that sets
 * {@link #server} to a {@link TestRedisCluster} (and leaves {@link #redis}, the one server, null).
 */
@RealParts
abstract class OneRedisPerClass {
    /** The one redis-server, for the tests that kill, hang or restart it; null on a Redis Cluster. */
    static TestRedis redis;
    /** What the nodes use: {@link #redis}, or a Redis Cluster. */
    static RedisUnderTest server;
    ClusterFixture cluster;

    @BeforeAll
    static void startRedis() {
        redis = TestRedis.start();
        server = redis;
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @BeforeEach
    void clean() {
        server.reset();
        cluster = new ClusterFixture(server);
    }

    @AfterEach
    void stopNodes() {
        cluster.close();
    }
}
