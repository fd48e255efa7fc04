package io.sluice.localredis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A throwaway Redis Cluster of {@code masters} masters and no replicas on this machine, for the demo cluster and the
 * benchmarks: {@link LocalRedis#startClusterNode cluster nodes} {@link #join joined} as the cluster tests join theirs.
 * Stopped with {@link #close()}, and with the JVM. Not for production.
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
            join(cluster.nodes, 0);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** {@code redis-cluster://} with every master as a seed, the form {@code --redis} takes. */
    public String url() {
        return "redis-cluster://" + nodes.stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(","));
    }

    /**
     * Joins cluster-enabled {@code nodes} into one Redis Cluster with {@code replicasEach} replicas per master
     * ({@code redis-cli --cluster create}, which makes the first nodes the masters, in that order), and returns once
     * every node says {@code cluster_state:ok}.
     *
     * @throws IllegalStateException with redis-cli's own words when the cluster cannot be made
     */
    public static void join(List<LocalRedis> nodes, int replicasEach) {
        List<String> command = new ArrayList<>(List.of(redisCli(), "--cluster", "create"));
        nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
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
        awaitOk(nodes);
    }

    /** Polls until every one of {@code nodes} serves every slot as the others see it. */
    private static void awaitOk(List<LocalRedis> nodes) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!nodes.stream().allMatch(LocalRedisCluster::ok)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Redis Cluster was not ok within " + DEADLINE);
            }
            try {
                Thread.sleep(50); // polling for the cluster's state, within the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Whether {@code node} says {@code cluster_state:ok} (CLUSTER INFO's first line). */
    private static boolean ok(LocalRedis node) {
        try {
            String info = node.command("CLUSTER", "INFO");
            return info != null && info.contains("cluster_state:ok");
        } catch (IOException e) {
            return false; // not answering yet
        }
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
