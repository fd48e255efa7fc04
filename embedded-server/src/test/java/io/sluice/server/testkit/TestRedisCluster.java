package io.sluice.server.testkit;

import io.sluice.localredis.LocalRedisCluster;
import io.sluice.server.cluster.RedisEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster for the cluster tests: {@code masters} {@link TestRedis#startClusterNode() cluster nodes} on
 * free ports (their bus ports free too), which a test may kill or stop, joined with {@code replicasEach} replicas
 * per master by {@link LocalRedisCluster#join}, as the demo's and the benchmarks' are. Close it after the class.
 */
public final class TestRedisCluster implements RedisUnderTest {
    private final List<TestRedis> nodes;
    private final int masters;

    private TestRedisCluster(List<TestRedis> nodes, int masters) {
        this.nodes = nodes;
        this.masters = masters;
    }

    /** Starts and joins the nodes; fails with redis-cli's own words when the cluster cannot be made. */
    public static TestRedisCluster start(int masters, int replicasEach) {
        List<TestRedis> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasEach); i++) {
                nodes.add(TestRedis.startClusterNode());
            }
            LocalRedisCluster.join(nodes.stream().map(TestRedis::server).toList(), replicasEach);
            return new TestRedisCluster(nodes, masters);
        } catch (RuntimeException | Error e) {
            nodes.forEach(TestRedis::close);
            throw e;
        }
    }

    /** The masters as created (before any failover), in port order of creation. */
    public List<TestRedis> masters() {
        return nodes.subList(0, masters);
    }

    /** Every node, masters first. */
    public List<TestRedis> nodes() {
        return nodes;
    }

    /** {@code CLUSTER NODES} as {@code node} sees it, for a failure's message. */
    public String nodesAsSeenBy(TestRedis node) {
        try {
            return cli(node, "cluster", "nodes");
        } catch (IOException e) {
            return "(redis-cli failed: " + e.getMessage() + ")";
        }
    }

    /** Whether {@code master} serves {@code slot}, as it sees itself ({@code CLUSTER NODES}, its "myself" line). */
    public boolean serves(TestRedis master, int slot) {
        String mine = nodesAsSeenBy(master).lines().filter(line -> line.contains("myself")).findFirst().orElse("");
        String[] fields = mine.trim().split(" ");
        for (int i = 8; i < fields.length; i++) {
            String[] range = fields[i].split("-");
            if (!range[0].startsWith("[") && slot >= Integer.parseInt(range[0])
                    && slot <= Integer.parseInt(range[range.length - 1])) {
                return true;
            }
        }
        return false;
    }

    /**
     * Moves {@code slot} and its keys from master {@code from} to master {@code to}, as {@code redis-cli --cluster
     * reshard} does (importing, migrating, {@code MIGRATE}, then the slot's new owner told to every master), without
     * telling any client: one that read the topology before still sends the slot's keys to {@code from}.
     */
    public void moveSlot(int slot, TestRedis from, TestRedis to) throws IOException {
        String fromId = from.command("CLUSTER", "MYID");
        String toId = to.command("CLUSTER", "MYID");
        String number = Integer.toString(slot);
        to.command("CLUSTER", "SETSLOT", number, "IMPORTING", fromId);
        from.command("CLUSTER", "SETSLOT", number, "MIGRATING", toId);
        List<String> keys = cli(from, "cluster", "getkeysinslot", number, "1000").lines()
                .filter(key -> !key.isBlank()).toList();
        if (!keys.isEmpty()) {
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", Integer.toString(to.port()), "",
                    "0", "5000", "KEYS"));
            migrate.addAll(keys);
            from.command(migrate.toArray(String[]::new));
        }
        for (TestRedis master : List.of(to, from)) {
            master.command("CLUSTER", "SETSLOT", number, "NODE", toId);
        }
        for (TestRedis master : masters()) {
            if (master != to && master != from) {
                master.command("CLUSTER", "SETSLOT", number, "NODE", toId);
            }
        }
    }

    private static String cli(TestRedis node, String... words) throws IOException {
        List<String> command = new ArrayList<>(List.of(LocalRedisCluster.redisCli(), "-p",
                Integer.toString(node.port())));
        command.addAll(List.of(words));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** Keys held by {@code node} ({@code DBSIZE}). */
    public static long keys(TestRedis node) {
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
}
