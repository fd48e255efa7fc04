package io.sluice.server.cluster;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * One connection to Redis that never makes its caller wait for an outage:
 * <ul>
 *   <li>every command has a deadline ({@code timeout}); past it the command fails, Redis is not waited for;</li>
 *   <li>while disconnected, commands are rejected at once (Lettuce's {@code REJECT_COMMANDS}) instead of
 *       buffered, and commands in flight when the connection drops fail instead of being replayed after the
 *       reconnect: a change is applied once or reported unknown, never sent twice behind the caller's back;</li>
 *   <li>it reconnects by itself (Lettuce's watchdog after the first connection; before it, this class retries
 *       the first connect in the background, so a node starts while Redis is down).</li>
 * </ul>
 * Thread-safe: Lettuce pipelines the commands of every thread on the one connection.
 *
 * <p>On a Redis Cluster ({@link RedisEndpoint#cluster()}) the link is Lettuce's cluster client: one connection per
 * node, each command sent to the node that serves its key's slot (a script, to the slot of its declared keys, which
 * must all share one; see {@link #spansSlots} for a call that carries more), {@code MOVED} and {@code ASK} followed,
 * and the topology read again when they come, when a connection drops, and every {@link #TOPOLOGY_REFRESH} in any
 * case, so a failover is picked up (docs/manual/cluster.md, "Redis Cluster"). Commands on the one node's connection
 * keep their order, as on one Redis.
 */
final class RedisLink implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisLink.class.getName());
    private static final Duration FIRST_RETRY = Duration.ofMillis(50);
    private static final Duration MAX_RETRY = Duration.ofSeconds(1);
    private static final Duration RECONNECT_POLL = Duration.ofMillis(5);
    /** A Redis Cluster's topology is read again at least this often, even when no command was redirected. */
    static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(5);
    /** Adaptive refreshes (a redirection, a dropped connection) at most this often, so a storm of MOVED is one. */
    private static final Duration ADAPTIVE_REFRESH_GAP = Duration.ofMillis(500);

    private final String name;
    private final AbstractRedisClient client;
    private final RedisURI uri;
    private final boolean cluster;
    private final ScheduledExecutorService scheduler;
    private volatile StatefulConnection<String, String> connection;
    private volatile RedisClusterAsyncCommands<String, String> commands;
    private volatile boolean closed;
    /** The Redis functions every master this link reaches has loaded, as far as it knows (LuaScript). */
    private final Set<String> functions = ConcurrentHashMap.newKeySet();

    /**
     * @param name      what the link is for, in Redis's {@code CLIENT LIST} and our messages
     * @param timeout   the deadline of every command on this link
     * @param resources shared event loops and the timer that fires the deadlines
     * @param scheduler runs the retries of the first connect
     */
    RedisLink(String name, RedisEndpoint endpoint, Duration timeout, ClientResources resources,
              ScheduledExecutorService scheduler) {
        this.name = name;
        this.scheduler = scheduler;
        this.uri = endpoint.toRedisUri();
        uri.setClientName(name);
        // The handshake (HELLO, AUTH, SELECT) after a (re)connect: short, so a hung server does not hold the
        // reconnect for the default minute.
        uri.setTimeout(timeout.multipliedBy(10).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
                : timeout.multipliedBy(10));
        this.cluster = endpoint.cluster();
        ClientOptions options = ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).keepAlive(true)
                        .tcpNoDelay(true).build())
                .build();
        if (cluster) {
            List<RedisURI> seeds = endpoint.seedUris();
            seeds.forEach(seed -> {
                seed.setClientName(name);
                seed.setTimeout(uri.getTimeout());
            });
            RedisClusterClient clusterClient = RedisClusterClient.create(resources, seeds);
            clusterClient.setOptions(ClusterClientOptions.builder(options)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_GAP)
                            .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                            .build())
                    .build());
            this.client = clusterClient;
        } else {
            RedisClient single = RedisClient.create(resources, uri);
            single.setOptions(options);
            this.client = single;
        }
    }

    /** True when this link is to a Redis Cluster: a script's keys must then share one slot. */
    boolean cluster() {
        return cluster;
    }

    /**
     * What serves {@code key} as far as this link knows: on a Redis Cluster, the id of the master its slot is on
     * (or, before the topology is known, the slot); on one Redis, the same for every key. A master's keys may go
     * in one call of a script that reaches undeclared keys (client-admit.lua), though a slot may have moved since.
     */
    Object shardOf(String key) {
        if (!cluster) {
            return this;
        }
        int slot = SlotHash.getSlot(key);
        if (connection instanceof StatefulRedisClusterConnection<String, String> many) {
            RedisClusterNode master = many.getPartitions().getPartitionBySlot(slot);
            if (master != null) {
                return master.getNodeId();
            }
        }
        return slot;
    }

    /**
     * {@code items} in groups that one script may take together: on a Redis Cluster, those whose {@code key} is in
     * the same slot (in the order first met); on one Redis, all of them.
     */
    <T> Collection<List<T>> bySlot(List<T> items, Function<T, String> key) {
        if (!cluster) {
            return List.of(items);
        }
        Map<Integer, List<T>> groups = new LinkedHashMap<>();
        for (T item : items) {
            groups.computeIfAbsent(SlotHash.getSlot(key.apply(item)), slot -> new ArrayList<>()).add(item);
        }
        return groups.values();
    }

    /**
     * Whether {@code keys} are in more than one slot of a Redis Cluster (never on one Redis). Stops at the first key
     * of another slot: in a busy node's call, within the first few.
     */
    boolean spansSlots(List<String> keys) {
        if (!cluster || keys.isEmpty()) {
            return false;
        }
        int slot = SlotHash.getSlot(keys.get(0));
        for (int i = 1; i < keys.size(); i++) {
            if (SlotHash.getSlot(keys.get(i)) != slot) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code items} in groups by what serves their {@code key} ({@link #shardOf}: on a Redis Cluster, its slot's
     * master, as this link last read the topology; on one Redis, all of them), in the order first met.
     */
    <T> Collection<List<T>> byShard(List<T> items, Function<T, String> key) {
        if (!cluster) {
            return List.of(items);
        }
        Map<Object, List<T>> groups = new LinkedHashMap<>();
        for (T item : items) {
            groups.computeIfAbsent(shardOf(key.apply(item)), shard -> new ArrayList<>()).add(item);
        }
        return groups.values();
    }

    /** Connects in the background, retrying until it succeeds or the link is closed. */
    RedisLink open() {
        attempt(FIRST_RETRY);
        return this;
    }

    private void attempt(Duration nextDelay) {
        if (closed) {
            return;
        }
        connect().whenComplete((opened, failure) -> {
            if (failure != null) {
                if (!closed) {
                    LOG.log(System.Logger.Level.DEBUG, () -> name + ": cannot connect to Redis yet: " + failure);
                    Duration after = nextDelay.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY
                            : nextDelay.multipliedBy(2);
                    scheduler.schedule(() -> attempt(after), nextDelay.toMillis(), TimeUnit.MILLISECONDS);
                }
                return;
            }
            if (closed) {
                opened.closeAsync();
            } else {
                commands = opened instanceof StatefulRedisClusterConnection<String, String> many ? many.async()
                        : ((StatefulRedisConnection<String, String>) opened).async();
                connection = opened;
            }
        });
    }

    private CompletableFuture<StatefulConnection<String, String>> connect() {
        try {
            return connectNow();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e); // a cluster client with no seed answering may throw at once
        }
    }

    private CompletableFuture<StatefulConnection<String, String>> connectNow() {
        if (client instanceof RedisClusterClient many) {
            // the topology first: the cluster client connects asynchronously only once it knows it
            return many.refreshPartitionsAsync().toCompletableFuture()
                    .thenCompose(known -> many.connectAsync(Utf8Codec.UTF8)).thenApply(opened -> opened);
        }
        return ((RedisClient) client).connectAsync(Utf8Codec.UTF8, uri).toCompletableFuture()
                .thenApply(opened -> opened);
    }

    /** True once connected and while the connection is up (Lettuce reconnects it in the background). */
    boolean connected() {
        StatefulConnection<String, String> current = connection;
        return current != null && current.isOpen();
    }

    /**
     * Waits, at most {@code limit}, for the link to be connected; returns at once when it is. An operator's change
     * made while Lettuce is reconnecting (Redis restarted a moment ago) would otherwise be refused without being
     * sent, for a gap of a few hundred milliseconds nobody can see; a command refused that way was never sent, so
     * waiting and sending it is safe.
     *
     * @return whether the link is connected now
     */
    boolean awaitConnected(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!connected() && !closed && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(RECONNECT_POLL.toNanos());
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return connected();
    }

    /**
     * Sends one command (or one script). The future fails with {@link RedisUnavailableException} at once
     * when the link is not connected, and with Lettuce's timeout exception at the deadline.
     */
    <T> CompletableFuture<T> call(Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
        RedisClusterAsyncCommands<String, String> current = commands;
        if (current == null || closed) {
            return CompletableFuture.failedFuture(new RedisUnavailableException(name + ": not connected to Redis"));
        }
        try {
            return command.apply(current).toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * PING, with the link's deadline. On a Redis Cluster every master that serves slots is asked, each on its own
     * connection, and the answer is whole only when all answer: a master gone fails the probe until the cluster has
     * failed its slots over and the topology read again says so, so the node is DEGRADED meanwhile rather than
     * flapping between a healthy probe of another master and the failed calls of that master's clients.
     */
    CompletableFuture<Void> ping() {
        return onEveryMaster(commands -> commands.ping());
    }

    /**
     * Sends one command to every master that serves slots, each on its own connection (on one Redis, to it), for
     * what every master must have or answer (a function's library, a probe); completes when all have answered, and
     * fails when one fails or, as a whole, at the link's deadline.
     */
    <T> CompletableFuture<Void> onEveryMaster(
            Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
        StatefulConnection<String, String> current = connection;
        if (!(current instanceof StatefulRedisClusterConnection<String, String> many) || closed) {
            return this.<T>call(command).thenApply(answer -> null);
        }
        try {
            List<CompletableFuture<T>> answers = new ArrayList<>();
            for (RedisClusterNode node : many.getPartitions()) {
                if (node.getRole().isUpstream() && !node.hasNoSlots()) {
                    answers.add(many.getConnectionAsync(node.getNodeId())
                            .thenCompose(one -> command.apply(one.async()).toCompletableFuture()));
                }
            }
            // Bounded as a whole too (a connection being made has its own, longer, timeout): the monitor sends
            // no probe while one is out.
            return answers.isEmpty() ? CompletableFuture.failedFuture(new RedisUnavailableException(name
                    + ": the Redis Cluster has no master serving slots")) : CompletableFuture.allOf(
                    answers.toArray(CompletableFuture[]::new)).orTimeout(uri.getTimeout().toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Whether every master this link reaches has the Redis function {@code name} loaded, as far as it knows. */
    boolean hasFunction(String name) {
        return functions.contains(name);
    }

    /** Every master this link reaches has loaded the Redis function {@code name}. */
    void functionLoaded(String name) {
        functions.add(name);
    }

    /**
     * A master answered that it has no function {@code name}: it is not called until loaded again.
     *
     * @return whether the link thought it loaded until now (the first of the calls that found it gone)
     */
    boolean functionLost(String name) {
        return functions.remove(name);
    }

    @Override
    public void close() {
        closed = true;
        StatefulConnection<String, String> current = connection;
        if (current != null) {
            current.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    @Override
    public String toString() {
        return name;
    }
}
