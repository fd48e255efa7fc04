package io.sluice.server.cluster;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.ClusterStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * This node's membership of a cluster: two links to Redis (commands with the short deadline; the policy
 * log's blocking reads on their own), the connection monitor, the shared policy and the node registry.
 * Starting never waits for Redis: a node whose Redis is down starts degraded and joins when it answers.
 */
public final class ClusterNode implements AutoCloseable {
    /** The health's reason while Redis answers but the node has not caught up with the cluster's policy yet. */
    static final String JOINING = "joining: Redis answers; reading the cluster's policy";
    private final String name;
    private final RedisEndpoint endpoint;
    private final RedisResources resources;
    private final RedisLink commands;
    private final RedisLink admin;
    private final RedisLink follow;
    private final ConnectionMonitor monitor;
    private final SharedPolicy policy;
    private final NodeRegistry registry;
    private final LocalLoad load;
    private final String adminAddress;
    private final ClusterSettings settings;
    private volatile RedisClientStateStore clientStore;

    /** How the node stands, for the health endpoint. */
    public record Health(String node, ClusterState state, String reason, Instant since, String redis,
                         int reachableNodes) {
    }

    private ClusterNode(String name, RedisEndpoint endpoint, String adminAddress, LocalLoad load,
                        ClusterSettings settings, InstantSource clock) {
        this.name = name;
        this.adminAddress = adminAddress;
        this.endpoint = endpoint;
        this.load = load;
        this.settings = settings;
        this.resources = new RedisResources(name);
        this.commands = resources.link("sluice-" + name, endpoint, settings.deadline());
        this.admin = resources.link("sluice-" + name + "-admin", endpoint, settings.adminDeadline());
        // Its reads block up to followBlock; give them that plus a second before calling Redis slow.
        this.follow = resources.link("sluice-" + name + "-log", endpoint,
                settings.followBlock().plus(Duration.ofSeconds(1)));
        this.monitor = new ConnectionMonitor(name, commands, endpoint, settings, clock);
        this.policy = new SharedPolicy(name, admin, follow, settings, resources.scheduler());
        this.registry = new NodeRegistry(name, adminAddress, commands, admin, settings, load, monitor::state, clock);
    }

    /**
     * Links: {@code commands} (the request path's: probes, heartbeats; deadline {@code deadline}), {@code admin}
     * (a policy change, the fleet view; {@code adminDeadline}), and the policy log's blocking reads on their own.
     *
     * @param name  this node's name in the cluster (unique)
     * @param admin this node's admin API address, shown to the fleet
     * @param load  what the node reports about itself
     */
    public static ClusterNode start(String name, RedisEndpoint endpoint, String admin, LocalLoad load,
                                    ClusterSettings settings, InstantSource clock) {
        ClusterNode node = new ClusterNode(name, endpoint, admin, load, settings, clock);
        node.monitor.start(node.resources.scheduler());
        node.registry.start(node.resources.scheduler());
        return node;
    }

    public String name() {
        return name;
    }

    /** The admin API address this node gives the fleet (a console opens it to see this node). */
    public String adminAddress() {
        return adminAddress;
    }

    /** The cluster's policy: compare-and-set it, follow it. */
    public SharedPolicy policy() {
        return policy;
    }

    /**
     * HEALTHY when Redis answers and, once the node follows the cluster's policy, it has caught up with it: a node
     * that says it is healthy takes the next change within the propagation goal (docs/manual/cluster.md).
     */
    public ClusterState state() {
        return policy.joining() ? ClusterState.DEGRADED : monitor.state();
    }

    /** Calls {@code listener} with each change of state (HEALTHY, DEGRADED), on the cluster's thread. */
    public void onStateChange(Consumer<ClusterState> listener) {
        monitor.onChange(change -> listener.accept(change.state()));
    }

    /**
     * Lets {@code store} (the engine's per-client store for the cluster) use this node's request link, its view of
     * Redis (a degraded node is not asked) and of the fleet (the nodes its limits divide by while degraded). The
     * store's answers complete on Redis's I/O thread, where nothing that waits for them may block
     * ({@link AdmissionBatches}).
     */
    public void shareClientState(RedisClientStateStore store) {
        store.attach(name, commands, monitor, registry::reachableNodes, settings.heartbeat(), resources.scheduler());
        clientStore = store;
    }

    /** The link the request path uses (deadline {@link ClusterSettings#deadline()}). */
    RedisLink requestLink() {
        return commands;
    }

    /** The link of the operator's calls (deadline {@link ClusterSettings#adminDeadline()}). */
    RedisLink adminLink() {
        return admin;
    }

    /** For the snapshot: this node, its state, the nodes it last saw and their requests in flight. */
    public ClusterStatus status() {
        return new ClusterStatus(name, state(), registry.reachableNodes(),
                load.inFlight() + registry.othersInFlight());
    }

    /** Requests in flight on the other reachable nodes, as last published (bound: {@link NodeRegistry}). */
    public long othersInFlight() {
        return registry.othersInFlight();
    }

    /** The fleet, read now from Redis (or the last reading, marked stale, when Redis does not answer). */
    public ClusterView view() {
        return registry.view(monitor.state(), endpoint.toString());
    }

    public Health health() {
        ConnectionMonitor.Change current = monitor.current();
        if (current.state() == ClusterState.HEALTHY && policy.joining()) {
            return new Health(name, ClusterState.DEGRADED, JOINING, current.at(), endpoint.toString(),
                    registry.reachableNodes());
        }
        return new Health(name, current.state(), current.reason(), current.at(), endpoint.toString(),
                registry.reachableNodes());
    }

    @Override
    public void close() {
        RedisClientStateStore store = clientStore;
        if (store != null) {
            store.detach();
        }
        registry.close();
        monitor.close();
        policy.close();
        follow.close();
        admin.close();
        commands.close();
        resources.close();
    }
}
