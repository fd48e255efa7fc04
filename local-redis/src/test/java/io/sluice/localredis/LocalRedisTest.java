package io.sluice.localredis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The launcher the tests, the demo cluster and the benchmarks share, against a real redis-server (tier 2). */
@Tag("real-parts")
class LocalRedisTest {

    @Test
    void aStartedServerAnswersOnItsPortAndKeepsNothingAfterAKill() throws IOException {
        try (LocalRedis redis = LocalRedis.start()) {
            assertThat(redis.url()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(redis.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(redis.command("GET", "k")).isEqualTo("v");

            redis.kill();
            assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(IOException.class);

            redis.restartEmpty();
            assertThat(redis.command("PING")).isEqualTo("PONG");
            assertThat(redis.command("GET", "k")).isNull();
        }
    }

    @Test
    void aHungServerAnswersNothingUntilResumed() throws IOException {
        try (LocalRedis redis = LocalRedis.start()) {
            redis.hang();
            assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(IOException.class);
            redis.resume();
            assertThat(redis.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void closeStopsTheServerAndRemovesItsFilesEvenWhenHung() throws IOException {
        LocalRedis redis = LocalRedis.start();
        Path dir = redis.dir();
        assertThat(dir).isDirectory();
        redis.hang();
        redis.close();
        assertThat(Files.exists(dir)).isFalse();
        assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(IOException.class);
    }

    @Test
    void optionsReachTheServer() {
        try (LocalRedis redis = LocalRedis.startWith("--rename-command", "FUNCTION", "")) {
            assertThatThrownBy(() -> redis.command("FUNCTION", "LIST")).isInstanceOf(IOException.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void aClusterOfThreeMastersServesEverySlotAndNamesEachAsASeed() throws IOException {
        try (LocalRedisCluster cluster = LocalRedisCluster.start(3)) {
            assertThat(cluster.url()).startsWith("redis-cluster://127.0.0.1:").matches(".*(,127\\.0\\.0\\.1:\\d+){2}");
            String seed = cluster.url().substring("redis-cluster://".length()).split(",")[0];
            int port = Integer.parseInt(seed.substring(seed.indexOf(':') + 1));
            assertThat(LocalRedis.binary("redis-cli")).isPresent();
            assertThat(new ProcessBuilder(LocalRedisCluster.redisCli(), "-p", Integer.toString(port), "cluster",
                    "info").start().getInputStream().readAllBytes()).asString().contains("cluster_slots_ok:16384");
        }
    }

    @Test
    void aClusterNeedsThreeMasters() {
        assertThatThrownBy(() -> LocalRedisCluster.start(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3 masters");
    }
}
