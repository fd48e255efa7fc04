package io.sluice.console.testkit;

import io.sluice.console.api.AdminClient;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.RedisEndpoint;
import io.sluice.server.demo.Demo;
import io.sluice.server.testkit.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A few real front ends in cluster mode in this JVM, on one real redis-server (the shared kit's
 * {@link TestRedis}): what the console's fleet is tested against. Each node has its own state directory; a node
 * can be stopped to go silent.
 */
public final class SmallCluster implements AutoCloseable {
    private final TestRedis redis;
    private final Path states;
    private final Map<String, SluiceServer> nodes = new LinkedHashMap<>();

    private SmallCluster(TestRedis redis, Path states) {
        this.redis = redis;
        this.states = states;
    }

    /** Starts redis and one node per name. */
    public static SmallCluster start(String... names) throws Exception {
        SmallCluster cluster = new SmallCluster(TestRedis.start(), Files.createTempDirectory("sluice-fleet"));
        try {
            for (String name : names) {
                cluster.nodes.put(name, Demo.start(ServerConfig.demo(cluster.states.resolve(name))
                        .withCluster(new ClusterOptions(RedisEndpoint.parse(cluster.redis.url(), null), name))));
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    public SluiceServer node(String name) {
        return nodes.get(name);
    }

    /** An operator's client of one node's admin API. */
    public AdminClient client(String name) {
        SluiceServer node = nodes.get(name);
        return new AdminClient(node.adminUri(), node.adminToken(), "tester");
    }

    /** Stops one node: it goes silent, and the others stop hearing from it. */
    public void stop(String name) {
        SluiceServer node = nodes.remove(name);
        if (node != null) {
            node.close();
        }
    }

    @Override
    public void close() {
        nodes.values().forEach(SluiceServer::close);
        nodes.clear();
        redis.close();
    }
}
