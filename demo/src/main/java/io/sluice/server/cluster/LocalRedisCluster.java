package io.sluice.server.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A throwaway Redis Cluster of {@code masters} masters and no replicas on this machine, for the benchmarks:
 * {@link LocalRedis#startClusterNode() cluster nodes} {@link #join joined} as the cluster tests join theirs. Stopped
 * with {@link #close()}, and with the JVM. Not for production.
 */
public final class LocalRedisCluster implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final List<LocalRedis> nodes = new ArrayList<>();

    private LocalRedisCluster() {
    }

    /**
     * Starts and joins the nodes.
     *
     * @throws IllegalStateException with {@link LocalRedis#INSTALL_HINT} when redis-server is missing, or
     *                               redis-server's or redis-cli's own words when the cluster cannot be made
     */
    public static LocalRedisCluster start(int masters) {
        if (masters < 3) {
            throw new IllegalArgumentException("a Redis Cluster needs at least 3 masters, not " + masters);
        }
        LocalRedisCluster cluster = new LocalRedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                cluster.nodes.add(LocalRedis.startClusterNode());
            }
            join(cluster.nodes.stream().map(LocalRedis::port).toList(), 0);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** {@code redis-cluster://} with every master as a seed, as {@code --redis} takes it. */
    public RedisEndpoint endpoint() {
        return RedisEndpoint.parse("redis-cluster://" + nodes.stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(",")), null);
    }

    /**
     * Joins the cluster-enabled redis-servers on loopback {@code ports} into one Redis Cluster with
     * {@code replicasEach} replicas per master ({@code redis-cli --cluster create}, which makes the first ports the
     * masters, in that order), and returns once every node says {@code cluster_state:ok}.
     *
     * @throws IllegalStateException with redis-cli's own words when the cluster cannot be made
     */
    public static void join(List<Integer> ports, int replicasEach) {
        List<String> command = new ArrayList<>(List.of(redisCli(), "--cluster", "create"));
        ports.forEach(port -> command.add("127.0.0.1:" + port));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasEach), "--cluster-yes"));
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
        awaitOk(ports);
    }

    /** Polls until every node on {@code ports} serves every slot as the others see it. */
    public static void awaitOk(List<Integer> ports) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!ports.stream().allMatch(LocalRedisCluster::ok)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Redis Cluster was not ok within " + DEADLINE);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Whether the node on {@code port} says {@code cluster_state:ok} (CLUSTER INFO's first line). */
    private static boolean ok(int port) {
        return LocalRedis.replyStart(port, "CLUSTER INFO", 32).contains("cluster_state:ok");
    }

    /** The distribution's {@code redis-cli}, else the first on the PATH. */
    public static String redisCli() {
        return LocalRedis.binary("redis-cli").orElse("redis-cli");
    }

    @Override
    public void close() {
        nodes.forEach(LocalRedis::close);
        nodes.clear();
    }
}
