package io.sluice.server.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster for the cluster tests: {@code masters} {@link TestRedis#startClusterNode() cluster nodes} on
 * free ports (their bus ports free too), joined by {@code redis-cli --cluster create} with {@code replicasEach}
 * replicas per master, ready once every node says {@code cluster_state:ok}. Close it after the class.
 */
final class TestRedisCluster implements RedisUnderTest {
    private static final Duration READY_DEADLINE = Duration.ofSeconds(60);

    private final List<TestRedis> nodes;
    private final int masters;

    private TestRedisCluster(List<TestRedis> nodes, int masters) {
        this.nodes = nodes;
        this.masters = masters;
    }

    /** Starts and joins the nodes; fails with redis-cli's own words when the cluster cannot be made. */
    static TestRedisCluster start(int masters, int replicasEach) {
        List<TestRedis> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasEach); i++) {
                nodes.add(TestRedis.startClusterNode());
            }
            TestRedisCluster cluster = new TestRedisCluster(nodes, masters);
            cluster.create(replicasEach);
            cluster.awaitReady();
            return cluster;
        } catch (RuntimeException | Error e) {
            nodes.forEach(TestRedis::close);
            throw e;
        }
    }

    private void create(int replicasEach) {
        List<String> command = new ArrayList<>(List.of(cli(), "--cluster", "create"));
        nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasEach), "--cluster-yes"));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            // redis-cli gives its first nodes the masters' role, in the order given
            if (!process.waitFor(READY_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish within " + READY_DEADLINE);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-cli (install the Debian package redis-tools)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Polls until every node serves every slot as the others see it ({@code cluster_state:ok}). */
    void awaitReady() {
        long deadline = System.nanoTime() + READY_DEADLINE.toNanos();
        while (!nodes.stream().allMatch(TestRedisCluster::ok)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the Redis Cluster was not ok within " + READY_DEADLINE);
            }
            pause();
        }
    }

    private static boolean ok(TestRedis node) {
        try {
            // CLUSTER INFO's first line
            return "cluster_state:ok".equals(node.command("CLUSTER", "INFO"));
        } catch (IOException e) {
            return false;
        }
    }

    /** The masters as created (before any failover), in port order of creation. */
    List<TestRedis> masters() {
        return nodes.subList(0, masters);
    }

    /** Every node, masters first. */
    List<TestRedis> nodes() {
        return nodes;
    }

    /** {@code CLUSTER NODES} as {@code node} sees it, for a failure's message. */
    String nodesAsSeenBy(TestRedis node) {
        try {
            Process process = new ProcessBuilder(cli(), "-p", Integer.toString(node.port()), "cluster", "nodes")
                    .redirectErrorStream(true).start();
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(redis-cli failed: " + e.getMessage() + ")";
        }
    }

    /** Keys held by {@code node} ({@code DBSIZE}). */
    static long keys(TestRedis node) {
        try {
            return Long.parseLong(node.command("DBSIZE"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public RedisEndpoint endpoint() {
        return RedisEndpoint.parse("redis-cluster://" + masters().stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(",")), null);
    }

    @Override
    public void reset() {
        for (TestRedis node : nodes) {
            try {
                if (!"0".equals(node.command("DBSIZE"))) {
                    node.command("FLUSHALL"); // a replica refuses it: its master's flush reaches it
                }
            } catch (IOException e) {
                // a replica (READONLY) or a node a test killed
            }
            try {
                node.command("SCRIPT", "FLUSH");
            } catch (IOException e) {
                // a node a test killed
            }
        }
    }

    @Override
    public long dropClients() {
        long dropped = 0;
        for (TestRedis node : nodes) {
            dropped += node.dropClients();
        }
        return dropped;
    }

    /** Sent to each master in turn until one holds the key (no {@code MOVED}). */
    @Override
    public String command(String... words) throws IOException {
        IOException last = null;
        for (TestRedis node : nodes) {
            try {
                return node.command(words);
            } catch (IOException e) {
                if (e.getMessage() == null || !e.getMessage().contains("MOVED")) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    @Override
    public void close() {
        nodes.forEach(TestRedis::close);
    }

    private static String cli() {
        for (String candidate : List.of("/usr/bin/redis-cli", "/usr/local/bin/redis-cli")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "redis-cli";
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
