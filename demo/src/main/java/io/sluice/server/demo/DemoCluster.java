package io.sluice.server.demo;

import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.localredis.LocalRedis;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.state.TokenStore;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The cluster demo: a local {@code redis-server}, one demo site, and front ends in this JVM joined into one
 * cluster through that Redis, each with its own state directory under {@code root} but the first node's token
 * files (as production nodes share them), and the demo's story spread over all of them.
 */
public final class DemoCluster implements AutoCloseable {
    /** How long the demo waits for node 1 to reach its Redis (a busy machine has taken seconds). */
    private static final Duration JOIN_PATIENCE = Duration.ofSeconds(30);
    private static final int SITE_THREADS = 32;

    private final LocalRedis redis;
    private final DemoUpstream site;
    private final List<SluiceServer> nodes;
    private final DemoScenario traffic;
    private final DemoCrawlers crawlers;

    private DemoCluster(LocalRedis redis, DemoUpstream site, List<SluiceServer> nodes, DemoScenario traffic,
                        DemoCrawlers crawlers) {
        this.redis = redis;
        this.site = site;
        this.nodes = nodes;
        this.traffic = traffic;
        this.crawlers = crawlers;
    }

    /**
     * @param root        where the nodes' state directories go ({@code node-1}, ...)
     * @param phaseLength the story's phase length, or null for no demo traffic
     * @throws IllegalStateException when {@code redis-server} is missing ({@link LocalRedis#INSTALL_HINT})
     */
    public static DemoCluster start(Path root, int nodeCount, Duration phaseLength) throws Exception {
        if (nodeCount < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        LocalRedis redis = LocalRedis.start();
        DemoUpstream site = null;
        List<SluiceServer> nodes = new ArrayList<>();
        try {
            site = DemoUpstream.start(SITE_THREADS);
            URI upstream = site.uri();
            DemoSite pages = site.pages();
            for (int i = 1; i <= nodeCount; i++) {
                Path state = root.resolve("node-" + i);
                if (i > 1) {
                    shareTokens(root.resolve("node-1"), state);
                }
                ServerConfig config = new ServerConfig(new HostPort("127.0.0.1", 0), upstream,
                        new HostPort("127.0.0.1", 0), state, null, false, false, null,
                        ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null)
                        .withCluster(new ClusterOptions(RedisEndpoint.parse(redis.url(), null), "node-" + i));
                nodes.add(SluiceServer.start(config));
            }
            DemoScenario traffic = null;
            DemoCrawlers crawlers = null;
            if (phaseLength != null) {
                awaitRedis(nodes.get(0).cluster());
                DemoScenario.verifyCrawlers(nodes.get(0).policyChanges());
                traffic = DemoScenario.start(nodes.stream().map(SluiceServer::frontUri).toList(), pages, phaseLength);
                crawlers = DemoCrawlers.start(nodes.get(0).adminUri(), nodes.get(0).state().workerToken());
            }
            return new DemoCluster(redis, site, nodes, traffic, crawlers);
        } catch (Exception | Error e) {
            nodes.forEach(SluiceServer::close);
            if (site != null) {
                site.close();
            }
            redis.close();
            throw e;
        }
    }

    /**
     * Waits until the node reaches Redis (its links connect in the background after it starts, and a change is
     * refused until they do). The demo's empty Redis needs no seeding first: the node's first change seeds it.
     */
    private static void awaitRedis(ClusterNode node) throws InterruptedException {
        CountDownLatch healthy = new CountDownLatch(1);
        node.onStateChange(state -> {
            if (state == ClusterState.HEALTHY) {
                healthy.countDown();
            }
        });
        if (node.state() != ClusterState.HEALTHY && !healthy.await(JOIN_PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(node.name() + " did not reach the demo's Redis within " + JOIN_PATIENCE);
        }
    }

    /** The first node's admin and workers' token files, copied (owner-only) into a new node's state directory. */
    private static void shareTokens(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        if (!to.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwx------"));
        for (String file : List.of(TokenStore.ADMIN_FILE, TokenStore.WORKER_FILE)) {
            Files.copy(from.resolve(file), to.resolve(file), StandardCopyOption.COPY_ATTRIBUTES,
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    public List<SluiceServer> nodes() {
        return nodes;
    }

    public String redisUrl() {
        return redis.url();
    }

    /** The demo traffic, or null. */
    public DemoScenario traffic() {
        return traffic;
    }

    @Override
    public void close() {
        if (crawlers != null) {
            crawlers.close();
        }
        if (traffic != null) {
            traffic.close();
        }
        nodes.forEach(SluiceServer::close);
        try {
            site.close();
        } catch (RuntimeException e) {
            // best effort: the demo is going away
        }
        redis.close();
    }
}
