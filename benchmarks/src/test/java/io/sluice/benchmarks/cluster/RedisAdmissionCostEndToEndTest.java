package io.sluice.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.localredis.LocalRedis;
import io.sluice.server.testkit.RealParts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The benchmark end to end, short: a real redis-server, then a real 3-master Redis Cluster, a node in this JVM
 * loading it. It asserts what the figures must show whatever the machine's speed (no timing bound): requests
 * admitted, a CPU figure for every redis-server, and a load spread over the shards. Skipped only where
 * redis-server is not installed (CI installs it).
 */
@RealParts
class RedisAdmissionCostEndToEndTest {
    private static final int CLIENTS = 10_000;
    private static final int IN_FLIGHT = 64;

    @BeforeAll
    static void redisInstalled() {
        assumeTrue(LocalRedis.installed(), LocalRedis.INSTALL_HINT);
    }

    @Test
    void oneRedisAdmitsAndItsCpuPerAdmittedRequestIsMeasured() throws Exception {
        CostResult result = RedisAdmissionCost.run(new CostOptions(1, null, -1, 1, CLIENTS, IN_FLIGHT, 1, 2));
        String report = printed(result);

        assertThat(result.counts().admitted()).as(report).isPositive();
        assertThat(result.shards()).as(report).singleElement().satisfies(shard -> {
            assertThat(shard.measured()).as("CPU of %s measured", shard.address()).isTrue();
            assertThat(result.perAdmitted(shard.cpuNanos())).as(report).isNotNaN().isNotNegative();
            assertThat(shard.stats().scripts().calls()).as(report).isPositive();
        });
        assertThat(report).contains("csv," + result.shards().get(0).address() + ",");
    }

    @Test
    void aRedisClusterOfThreeShardsTakesAboutAThirdOfTheCommandsEach() throws Exception {
        CostResult result = RedisAdmissionCost.run(new CostOptions(3, null, -1, 1, CLIENTS, IN_FLIGHT, 1, 3));
        String report = printed(result);

        assertThat(result.counts().admitted()).as(report).isPositive();
        assertThat(result.shards()).as(report).hasSize(3).allSatisfy(shard -> {
            assertThat(shard.measured()).as("CPU of %s measured", shard.address()).isTrue();
            assertThat(result.perAdmitted(shard.cpuNanos())).as(report).isNotNaN().isNotNegative();
            assertThat(result.commandShare(shard)).as("%s's share of the commands%n%s", shard.address(), report)
                    .isBetween(0.15, 0.55);
        });
    }

    private static String printed(CostResult result) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CostReport.print(result, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
