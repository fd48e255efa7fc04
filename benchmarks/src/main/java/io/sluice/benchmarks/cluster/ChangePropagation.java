package io.sluice.benchmarks.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.localredis.LocalRedis;
import io.sluice.localredis.LocalRedisCluster;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.demo.Demo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * How long a change takes to be in force on every node of a cluster. Starts a local {@code redis-server} (or uses
 * {@code --redis}) and {@code --nodes} front ends in this JVM, each with its own state directory; then, one after
 * the other, makes {@code --changes} changes through the first node's admin API (real HTTP) and measures, per
 * change, from just before the request is sent until each node's engine holds it. Prints p50, p99 and max of: the
 * admin call's answer (by then the change is in force on the node that made it), each node, and every node.
 *
 * <p>{@code --kind ban}: {@code POST /api/v1/bans}, each ban lifted before the next so the policy stays small, and
 * checked with one real request through every node's front end (403). {@code --kind policy}: an operator's edit,
 * {@code GET} then {@code PUT /api/v1/policy} with {@code If-Match}, the hit stack's {@code maxHits} changed each
 * time; in force on a node once its engine runs that version.
 *
 * <p>The first {@code --early} changes are made as soon as every node says it is healthy, before the nodes have
 * seen each other (what an operator's first edit after a rolling restart meets), and reported apart; then
 * {@code --warmup} unrecorded changes, then the recorded ones.
 *
 * <p>{@code --from-start} (issue 50's measure): no early, no warm-up; the recorded changes begin with the first one
 * after start, made as soon as every node says it is healthy, and that first one is also reported alone.
 * {@code --redis-cluster N} starts a local Redis Cluster of {@code N} masters instead of one {@code redis-server}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.cluster.ChangePropagation \
 *      [--kind ban|policy] [--changes 500] [--nodes 3] [--early 5] [--warmup 50] [--from-start]
 *      [--redis redis://127.0.0.1:6379/15 | --redis-cluster 3]
 * </pre>
 * Polls every node's policy every 20 microseconds, so figures are exact to about that, plus the loaded
 * machine's scheduling.
 */
public final class ChangePropagation {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_NANOS = 20_000;
    private static final Duration GIVE_UP = Duration.ofSeconds(10);

    private final List<SluiceServer> nodes;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String kind;

    private ChangePropagation(List<SluiceServer> nodes, String kind) {
        this.nodes = nodes;
        this.kind = kind;
    }

    /** One change's timings in nanoseconds from the request: the admin call's answer, then each node's. */
    record Sample(long answered, long[] inForce) {
        long everywhere() {
            return Arrays.stream(inForce).max().orElseThrow();
        }
    }

    public static void main(String[] args) throws Exception {
        String kind = stringArg(args, "--kind", "ban");
        int changes = intArg(args, "--changes", 500);
        int nodeCount = intArg(args, "--nodes", 3);
        int early = intArg(args, "--early", 5);
        int warmup = intArg(args, "--warmup", 50);
        String redisUrl = stringArg(args, "--redis", null);
        int clusterMasters = intArg(args, "--redis-cluster", 0);
        boolean fromStart = List.of(args).contains("--from-start");
        if (fromStart) {
            early = 0;
            warmup = 0;
        }
        if (!kind.equals("ban") && !kind.equals("policy")) {
            throw new IllegalArgumentException("--kind is ban or policy");
        }
        if (changes < 1 || nodeCount < 2 || warmup < 0 || early < 0) {
            throw new IllegalArgumentException("--changes must be positive, --nodes at least 2, --early and "
                    + "--warmup not negative");
        }
        LocalRedisCluster localCluster = redisUrl == null && clusterMasters > 0
                ? LocalRedisCluster.start(clusterMasters) : null;
        LocalRedis local = redisUrl == null && localCluster == null ? LocalRedis.start() : null;
        String localUrl = local != null ? local.url() : localCluster != null ? localCluster.url() : null;
        RedisEndpoint endpoint = localUrl != null ? RedisEndpoint.parse(localUrl, null)
                : RedisEndpoint.parse(redisUrl, System.getenv(RedisEndpoint.PASSWORD_VARIABLE));
        List<SluiceServer> nodes = new ArrayList<>();
        try {
            for (int i = 1; i <= nodeCount; i++) {
                Path state = Files.createTempDirectory("sluice-ban-propagation-" + i);
                nodes.add(Demo.start(ServerConfig.demo(state)
                        .withCluster(new ClusterOptions(endpoint, "node-" + i))));
            }
            ChangePropagation run = new ChangePropagation(nodes, kind);
            run.awaitHealthy();
            System.out.printf(Locale.ROOT, "%s propagation: %d nodes in one JVM, Redis %s; through %s%n", kind,
                    nodeCount, endpoint, nodes.get(0).cluster().name());
            if (early > 0) {
                List<Sample> first = new ArrayList<>();
                for (int i = 0; i < early; i++) {
                    first.add(run.change("early-" + i));
                }
                System.out.printf(Locale.ROOT, "%d changes as soon as every node was healthy:%n", early);
                report(first, nodes);
            }
            if (!fromStart) {
                run.awaitCluster();
            }
            for (int i = 0; i < warmup; i++) {
                run.change("warmup-" + i);
            }
            List<Sample> samples = new ArrayList<>();
            for (int i = 0; i < changes; i++) {
                samples.add(run.change("probe-" + i));
            }
            if (fromStart) {
                System.out.printf(Locale.ROOT, "the first change after start (every node healthy): in force on every"
                        + " node after %.2f ms%n", samples.get(0).everywhere() / 1e6);
                System.out.printf(Locale.ROOT, "%d changes from the first after start:%n", changes);
            } else {
                System.out.printf(Locale.ROOT, "%d changes after %d unrecorded, once the nodes had met:%n", changes,
                        warmup);
            }
            report(samples, nodes);
        } finally {
            nodes.forEach(SluiceServer::close);
            if (local != null) {
                local.close();
            }
            if (localCluster != null) {
                localCluster.close();
            }
        }
    }

    private void awaitHealthy() throws InterruptedException {
        awaitNodes(n -> n.cluster().state() == ClusterState.HEALTHY);
    }

    private void awaitCluster() throws InterruptedException {
        awaitNodes(n -> n.cluster().state() == ClusterState.HEALTHY && n.cluster().status().nodes() == nodes.size()
                && n.engine().policy().version() == nodes.get(0).engine().policy().version());
    }

    private void awaitNodes(Predicate<SluiceServer> ready) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!nodes.stream().allMatch(ready)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the nodes did not meet within 30 s");
            }
            Thread.sleep(20);
        }
    }

    private Sample change(String name) throws Exception {
        return kind.equals("ban") ? banAndLift(name) : edit();
    }

    /** An operator's edit of the hit stack's limit, from the version just read. */
    private Sample edit() throws Exception {
        SluiceServer through = nodes.get(0);
        ObjectNode policy = (ObjectNode) JSON.readTree(admin(through, "GET", "/api/v1/policy", null).body());
        long version = policy.path("version").asLong();
        ObjectNode hitStack = (ObjectNode) policy.path("hitStack");
        hitStack.put("maxHits", hitStack.path("maxHits").asInt() == 10 ? 11 : 10);
        long start = System.nanoTime();
        HttpResponse<String> response = admin(through, "PUT", "/api/v1/policy", JSON.writeValueAsString(policy),
                "If-Match", "\"" + version + "\"");
        long answered = System.nanoTime() - start;
        if (response.statusCode() != 200) {
            throw new IllegalStateException("PUT /api/v1/policy answered " + response.statusCode() + ": "
                    + response.body());
        }
        return new Sample(answered, awaitEverywhere(start, node -> node.engine().policy().version() > version));
    }

    private Sample banAndLift(String name) throws Exception {
        String agent = "SluicePropagation-" + name;
        SluiceServer through = nodes.get(0);
        long start = System.nanoTime();
        HttpResponse<String> response = admin(through, "POST", "/api/v1/bans",
                "{\"type\": \"agent\", \"value\": \"" + agent + "\", \"reason\": \"propagation probe\"}");
        long answered = System.nanoTime() - start;
        if (response.statusCode() != 201) {
            throw new IllegalStateException("POST /api/v1/bans answered " + response.statusCode() + ": "
                    + response.body());
        }
        String id = JSON.readTree(response.body()).path("id").asText();
        long[] inForce = awaitEverywhere(start, node -> holds(node, id));
        for (SluiceServer node : nodes) {
            int status = front(node, agent + "/1.0");
            if (status != 403) {
                throw new IllegalStateException(node.cluster().name() + " answered " + status + ", not 403, to "
                        + agent + " once its engine held the ban");
            }
        }
        HttpResponse<String> lifted = admin(through, "DELETE", "/api/v1/bans/" + id, null);
        if (lifted.statusCode() / 100 != 2) {
            throw new IllegalStateException("DELETE /api/v1/bans/" + id + " answered " + lifted.statusCode());
        }
        awaitEverywhere(System.nanoTime(), node -> !holds(node, id));
        return new Sample(answered, inForce);
    }

    /** Nanoseconds from {@code start} until each node's policy has the change. */
    private long[] awaitEverywhere(long start, Predicate<SluiceServer> changed) {
        long[] at = new long[nodes.size()];
        int pending = nodes.size();
        while (pending > 0) {
            long now = System.nanoTime();
            for (int i = 0; i < at.length; i++) {
                if (at[i] == 0 && changed.test(nodes.get(i))) {
                    at[i] = Math.max(1, now - start);
                    pending--;
                }
            }
            if (now - start > GIVE_UP.toNanos()) {
                throw new IllegalStateException("a change was not in force on every node within " + GIVE_UP);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return at;
    }

    private static boolean holds(SluiceServer node, String id) {
        return node.engine().policy().bans().stream().anyMatch(b -> b.id().equals(id));
    }

    private HttpResponse<String> admin(SluiceServer node, String method, String path, String body,
                                       String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(node.adminUri().resolve(path))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + node.adminToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private int front(SluiceServer node, String userAgent) throws Exception {
        URI uri = node.frontUri().resolve("/");
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).header("User-Agent", userAgent)
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static void report(List<Sample> samples, List<SluiceServer> nodes) {
        System.out.printf(Locale.ROOT, "%-28s %10s %10s %10s%n", "ms from the request", "p50", "p99", "max");
        line("admin call answered", samples.stream().mapToLong(Sample::answered).toArray());
        for (int i = 0; i < nodes.size(); i++) {
            int node = i;
            line("in force on " + nodes.get(i).cluster().name() + (i == 0 ? " (asked)" : ""),
                    samples.stream().mapToLong(s -> s.inForce()[node]).toArray());
        }
        long[] everywhere = samples.stream().mapToLong(Sample::everywhere).toArray();
        line("in force on every node", everywhere);
        long over = Arrays.stream(everywhere).filter(n -> n > 100_000_000L).count();
        System.out.printf(Locale.ROOT, "changes over 100 ms to be everywhere: %d of %d%n", over,
                everywhere.length);
    }

    private static void line(String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "%-28s %10.2f %10.2f %10.2f%n", what, percentile(sorted, 0.50) / 1e6,
                percentile(sorted, 0.99) / 1e6, sorted[sorted.length - 1] / 1e6);
    }

    /** Nearest rank. */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static int intArg(String[] args, String name, int fallback) {
        String value = stringArg(args, name, null);
        return value == null ? fallback : Integer.parseInt(value);
    }

    private static String stringArg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
