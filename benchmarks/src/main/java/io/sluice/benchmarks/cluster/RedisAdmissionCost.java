package io.sluice.benchmarks.cluster;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.localredis.LocalRedis;
import io.sluice.localredis.LocalRedisCluster;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.demo.Demo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Redis's side of cluster mode alone (issue #29's goal: at most 12 us of Redis CPU per admitted request; and a load
 * spread over the shards of a Redis Cluster): no HTTP, no upstream, no wrk. Starts its own Redis ({@code --shards 1},
 * one redis-server) or Redis Cluster ({@code --shards 3}: three masters), or uses {@code --redis URL}; starts
 * {@code --nodes} nodes in this JVM on the front-end harness's admit-all policy; then asks each node's engine
 * directly, {@code --in-flight} requests outstanding per node, from {@code --clients} addresses in turn, completing
 * every admitted request at once so its leases are given back as in production. After {@code --warmup} seconds it
 * resets Redis's command counts and measures {@code --seconds}: each redis-server's CPU time (from /proc, so a
 * server on this machine only) and commands, per admitted request, and each shard's share; and this JVM's CPU
 * (the nodes and the load driver together).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.cluster.RedisAdmissionCost \
 *      [--shards 1|3] [--redis URL] [--redis-core N] [--nodes 1] [--clients 10000] [--in-flight 64] \
 *      [--warmup 20] [--seconds 30]
 * </pre>
 * {@code --redis-core N} pins every local redis-server to core N ({@code taskset}), e.g. away from this JVM.
 * docs/manual/benchmarks.md says what each figure means.
 */
public final class RedisAdmissionCost {
    private static final Duration READY = Duration.ofSeconds(60);
    private static final PolicyChanges.Author AUTHOR = new PolicyChanges.Author("redis-admission-cost", null);

    private RedisAdmissionCost() {
    }

    public static void main(String[] args) throws Exception {
        CostOptions options;
        try {
            options = CostOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        CostReport.print(run(options), System.out);
    }

    /** Starts what {@code options} ask for, loads it, measures, and stops it all. */
    static CostResult run(CostOptions options) throws Exception {
        LocalRedis single = null;
        LocalRedisCluster cluster = null;
        try {
            RedisEndpoint endpoint;
            if (options.redisUrl() != null) {
                endpoint = RedisEndpoint.parse(options.redisUrl(), System.getenv(RedisEndpoint.PASSWORD_VARIABLE));
            } else if (options.shards() == 1) {
                single = LocalRedis.start();
                endpoint = RedisEndpoint.parse(single.url(), null);
            } else {
                cluster = LocalRedisCluster.start(options.shards());
                endpoint = RedisEndpoint.parse(cluster.url(), null);
            }
            List<MeasuredRedis> servers = MeasuredRedis.behind(endpoint);
            if (options.redisCore() >= 0) {
                servers.forEach(server -> pin(server, options.redisCore()));
            }
            return measure(options, endpoint, servers);
        } finally {
            if (single != null) {
                single.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static CostResult measure(CostOptions options, RedisEndpoint endpoint, List<MeasuredRedis> servers)
            throws Exception {
        List<SluiceServer> nodes = new ArrayList<>();
        List<Path> states = new ArrayList<>();
        List<AdmissionLoad> loads = new ArrayList<>();
        AtomicInteger degraded = new AtomicInteger();
        try {
            for (int i = 1; i <= options.nodes(); i++) {
                Path state = Files.createTempDirectory("sluice-redis-cost-" + i);
                states.add(state);
                SluiceServer node = Demo.start(ServerConfig.demo(state)
                        .withCluster(new ClusterOptions(endpoint, "node-" + i)));
                nodes.add(node);
                node.cluster().onStateChange(state1 -> {
                    if (state1 == ClusterState.DEGRADED) {
                        degraded.incrementAndGet();
                    }
                });
            }
            await(nodes, n -> n.cluster().state() == ClusterState.HEALTHY
                    && n.cluster().status().nodes() == options.nodes(), "be healthy and see each other");
            nodes.get(0).policyChanges().applyIfChanged(AUTHOR, "policy.replace", "admit-all, to measure Redis's "
                    + "cost of an admission", AdmitAll::over, null);
            await(nodes, n -> AdmitAll.holds(n.engine().policy()), "run the admit-all policy");

            ClientCycle clients = new ClientCycle(options.clients());
            for (SluiceServer node : nodes) {
                loads.add(new AdmissionLoad(node.cluster().name(), node.engine(), clients, options.inFlight()));
            }
            Thread.sleep(TimeUnit.SECONDS.toMillis(options.warmupSeconds()));

            AdmissionLoad.Counts before = counts(loads);
            long jvmBefore = ProcessCpu.selfNanos();
            long[] cpuBefore = servers.stream().mapToLong(MeasuredRedis::cpuNanos).toArray();
            servers.forEach(MeasuredRedis::resetStats);
            int degradedBefore = degraded.get();
            long start = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(options.seconds()));
            List<CommandStats> stats = servers.stream().map(MeasuredRedis::commandStats).toList();
            long[] cpuAfter = servers.stream().mapToLong(MeasuredRedis::cpuNanos).toArray();
            AdmissionLoad.Counts counts = counts(loads).minus(before);
            long nanos = System.nanoTime() - start;
            long jvm = ProcessCpu.selfNanos() - jvmBefore;

            List<CostResult.Shard> shards = new ArrayList<>();
            for (int i = 0; i < servers.size(); i++) {
                MeasuredRedis server = servers.get(i);
                shards.add(new CostResult.Shard(server.address().name(),
                        server.local() ? cpuAfter[i] - cpuBefore[i] : -1, stats.get(i)));
            }
            String refusal = loads.stream().map(AdmissionLoad::lastRefusal).filter(r -> r != null).findFirst()
                    .orElse(null);
            return new CostResult(options, describe(endpoint, servers.size()), counts, nanos, jvm, shards,
                    degraded.get() - degradedBefore, refusal);
        } finally {
            loads.forEach(AdmissionLoad::close);
            nodes.forEach(SluiceServer::close);
            states.forEach(RedisAdmissionCost::delete);
        }
    }

    private static AdmissionLoad.Counts counts(List<AdmissionLoad> loads) {
        return loads.stream().map(AdmissionLoad::counts).reduce(AdmissionLoad.Counts.NONE,
                AdmissionLoad.Counts::plus);
    }

    private static String describe(RedisEndpoint endpoint, int servers) {
        return endpoint.cluster() ? "a Redis Cluster of " + servers + " masters (" + endpoint + ")"
                : "one Redis (" + endpoint + ")";
    }

    private static void await(List<SluiceServer> nodes, Predicate<SluiceServer> ready, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + READY.toNanos();
        while (!nodes.stream().allMatch(ready)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the nodes did not " + what + " within " + READY);
            }
            Thread.sleep(20);
        }
    }

    /** Every thread of {@code server} on {@code core} ({@code taskset -a -p -c}). */
    private static void pin(MeasuredRedis server, int core) {
        if (!server.local()) {
            throw new IllegalArgumentException("--redis-core pins a redis-server on this machine; " + server.address()
                    + " is not one");
        }
        try {
            Process taskset = new ProcessBuilder("taskset", "-a", "-p", "-c", Integer.toString(core),
                    Long.toString(server.pid())).redirectErrorStream(true).start();
            String output = new String(taskset.getInputStream().readAllBytes());
            if (taskset.waitFor() != 0) {
                throw new IllegalStateException("taskset could not pin " + server.address() + " to core " + core
                        + ": " + output.strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run taskset (util-linux) to pin Redis to a core", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }
}
