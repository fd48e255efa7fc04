package io.sluice.benchmarks.cluster;

import io.sluice.server.cluster.LocalRedis;
import io.sluice.server.cluster.RedisEndpoint;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A throwaway Redis Cluster of {@code masters} masters and no replicas, on this machine: the distribution's
 * {@code redis-server --cluster-enabled yes} on free loopback ports whose cluster bus ports (+10000) are free too,
 * nothing saved to disk, joined by {@code redis-cli --cluster create}, ready once every node says
 * {@code cluster_state:ok}. Made as the cluster tests make theirs (docs/architecture-cluster.md, "Keys": every
 * script's keys in one slot). Stopped with {@link #close()}, and with the JVM.
 */
final class LocalRedisCluster implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final List<Node> nodes = new ArrayList<>();

    /** One redis-server of the cluster. */
    private record Node(Process process, int port, Path dir) {
    }

    private LocalRedisCluster() {
    }

    /**
     * Starts and joins the nodes.
     *
     * @throws IllegalStateException with {@link LocalRedis#INSTALL_HINT} when redis-server is missing, or
     *                               redis-server's or redis-cli's own words when the cluster cannot be made
     */
    static LocalRedisCluster start(int masters) {
        if (masters < 3) {
            throw new IllegalArgumentException("a Redis Cluster needs at least 3 masters, not " + masters);
        }
        String server = binary("redis-server").orElseThrow(() -> new IllegalStateException(LocalRedis.INSTALL_HINT));
        LocalRedisCluster cluster = new LocalRedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                cluster.nodes.add(launch(server));
            }
            cluster.create();
            cluster.awaitOk();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** Whether this machine has {@code redis-server} (the distribution's package, or on the PATH). */
    static boolean installed() {
        return binary("redis-server").isPresent();
    }

    /** {@code redis-cluster://} with every master as a seed, as {@code --redis} takes it. */
    RedisEndpoint endpoint() {
        return RedisEndpoint.parse("redis-cluster://" + nodes.stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(",")), null);
    }

    private static Node launch(String binary) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) { // a free port can be taken before redis binds it
            Path dir = tempDir();
            int port = LocalRedis.freePortWithClusterBus();
            ProcessBuilder builder = new ProcessBuilder(binary, "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--protected-mode", "yes", "--loglevel", "warning", "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf");
            builder.redirectErrorStream(true);
            builder.redirectOutput(dir.resolve("redis.log").toFile());
            Node node;
            try {
                node = new Node(builder.start(), port, dir);
            } catch (IOException e) {
                throw new IllegalStateException(LocalRedis.INSTALL_HINT + " (" + e.getMessage() + ")", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(node.process()::destroyForcibly, "sluice-redis-stop"));
            try {
                awaitPong(node);
                return node;
            } catch (IllegalStateException e) {
                stop(node);
                last = e;
            }
        }
        throw last;
    }

    private static void awaitPong(Node node) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!node.process().isAlive()) {
                throw new IllegalStateException("redis-server exited at start: " + log(node));
            }
            try {
                if ("PONG".equals(RedisAddress.loopback(node.port()).command("PING"))) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            pause();
        }
        throw new IllegalStateException("redis-server did not answer PING within " + DEADLINE + ": " + log(node));
    }

    private void create() {
        List<String> command = new ArrayList<>(List.of(binary("redis-cli").orElse("redis-cli"), "--cluster",
                "create"));
        nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes(); // ends when redis-cli does
            if (!process.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish within " + DEADLINE);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: "
                        + new String(output, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-cli (on Debian or Ubuntu it comes with redis-server, "
                    + "or in redis-tools)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls until every node serves every slot as the others see it. */
    private void awaitOk() {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!nodes.stream().allMatch(LocalRedisCluster::ok)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Redis Cluster was not ok within " + DEADLINE);
            }
            pause();
        }
    }

    private static boolean ok(Node node) {
        try {
            return RedisAddress.loopback(node.port()).command("CLUSTER", "INFO").startsWith("cluster_state:ok");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        nodes.forEach(LocalRedisCluster::stop);
        nodes.clear();
    }

    private static void stop(Node node) {
        node.process().destroy();
        try {
            if (!node.process().waitFor(5, TimeUnit.SECONDS)) {
                node.process().destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            node.process().destroyForcibly();
        }
        try (Stream<Path> files = Files.walk(node.dir())) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    private static String log(Node node) {
        try {
            return Files.readString(node.dir().resolve("redis.log")).strip();
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** The distribution's binary, else the first on the PATH. */
    private static Optional<String> binary(String name) {
        Stream<String> dirs = Stream.concat(Stream.of("/usr/bin", "/usr/local/bin"),
                Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        return dirs.filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, name)).filter(Files::isExecutable)
                .map(Path::toString).findFirst();
    }


    private static Path tempDir() {
        try {
            return Files.createTempDirectory("sluice-redis-cluster");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
