package io.sluice.server.cluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** One redis-server for the test class, emptied before each test; each test's nodes closed after it. */
abstract class OneRedisPerClass {
    static TestRedis redis;
    ClusterFixture cluster;

    @BeforeAll
    static void startRedis() {
        redis = TestRedis.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void clean() {
        redis.reset();
        cluster = new ClusterFixture(redis);
    }

    @AfterEach
    void stopNodes() {
        cluster.close();
    }
}
