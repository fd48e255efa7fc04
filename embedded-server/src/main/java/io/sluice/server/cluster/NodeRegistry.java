package io.sluice.server.cluster;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScriptOutputType;
import io.sluice.engine.RequestClass;
import io.sluice.engine.Reason;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.io.IOException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The fleet: every heartbeat this node publishes its {@link NodeReport} (a hash that expires, stamped with
 * Redis's clock) and reads every node's, in one script each; once a second it adds its per-second counts.
 *
 * <p><b>Global load, and its error bound.</b> {@link #othersInFlight()} is the sum of the other reachable
 * nodes' in-flight counts as last read. Each figure is at most {@code 2 x heartbeat + 2 x deadline} old
 * (published up to one heartbeat after it changed, read up to one heartbeat after it was published, each
 * step within its deadline): 300 ms with the defaults. So the cluster's load as one node sees it is off by
 * at most the requests the other nodes started or finished in the last 300 ms, and never counts a node
 * unheard for {@code unreachableAfter} (its requests died with it, or it serves on its own). While Redis
 * is unavailable the last figures stay in use, and {@link #reachableNodes()} says how many nodes they cover.
 */
final class NodeRegistry implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(NodeRegistry.class.getName());
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final TypeReference<List<SecondCounts>> SECONDS = new TypeReference<>() {
    };
    private static final LuaScript PUBLISH = LuaScript.load("node-publish");
    private static final LuaScript READ = LuaScript.load("nodes-read");

    /** One node as last read: when Redis last heard it and what it said. */
    record Seen(String name, long heardMillis, NodeReport report, List<SecondCounts> seconds) {
    }

    /** The result of one read: Redis's time then, and every node. */
    record Reading(long redisMillis, List<Seen> nodes) {
        static final Reading NONE = new Reading(0, List.of());
    }

    private final String name;
    private final String admin;
    private final RedisLink link;
    private final RedisLink adminLink;
    private final ClusterSettings settings;
    private final LocalLoad load;
    private final Supplier<ClusterState> state;
    private final InstantSource clock;
    private final Instant startedAt;
    private final AtomicBoolean publishing = new AtomicBoolean();
    private final AtomicBoolean reading = new AtomicBoolean();
    private volatile Reading last = Reading.NONE;
    /** {@link #reachableNodes()} of {@link #last}, counted once per reading: every request's limits scale by it. */
    private volatile int reachableNodes = 1;
    private volatile long secondsPublishedFor = Long.MIN_VALUE;
    private ScheduledFuture<?> schedule;

    NodeRegistry(String name, String admin, RedisLink link, RedisLink adminLink, ClusterSettings settings,
                 LocalLoad load, Supplier<ClusterState> state, InstantSource clock) {
        this.name = name;
        this.admin = admin;
        this.link = link;
        this.adminLink = adminLink;
        this.settings = settings;
        this.load = load;
        this.state = state;
        this.clock = clock;
        this.startedAt = clock.instant();
    }

    void start(ScheduledExecutorService scheduler) {
        schedule = scheduler.scheduleWithFixedDelay(this::heartbeat, 0, settings.heartbeat().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private String nodesKey() {
        return settings.fleetKey("nodes");
    }

    private String nodePrefix() {
        return settings.fleetKey("node:");
    }

    private void heartbeat() {
        publish();
        if (reading.compareAndSet(false, true)) {
            read(link, false).whenComplete((reading, failure) -> {
                this.reading.set(false);
                if (reading != null) {
                    last = reading;
                    reachableNodes = reachableIn(reading);
                    load.othersInFlight(othersInFlight()); // load deferral compares the cluster's in flight
                }
            });
        }
    }

    /** Publishes this node's report; skipped while the previous one is still within its deadline. */
    private void publish() {
        if (!publishing.compareAndSet(false, true)) {
            return;
        }
        long second = clock.millis() / 1000;
        String seconds = second == secondsPublishedFor ? "" : SharedPolicy.json(load.lastMinute());
        NodeState mine = state.get() == ClusterState.HEALTHY ? NodeState.HEALTHY : NodeState.DEGRADED;
        String status = SharedPolicy.json(new NodeReport(name, admin, mine, load.inFlight(), load.policyVersion(),
                startedAt));
        PUBLISH.<Long>run(link, ScriptOutputType.INTEGER, new String[] {nodePrefix() + name, nodesKey()}, name,
                Long.toString(settings.nodeTtl().toMillis()), status, seconds).whenComplete((now, failure) -> {
                    publishing.set(false);
                    if (failure == null && !seconds.isEmpty()) {
                        secondsPublishedFor = second;
                    } else if (failure != null) {
                        LOG.log(System.Logger.Level.DEBUG, () -> "cluster: heartbeat not published: "
                                + ConnectionMonitor.describe(failure));
                    }
                });
    }

    /** Reads every node in one script; {@code full} adds each node's per-second counts (for the API). */
    private CompletableFuture<Reading> read(RedisLink over, boolean full) {
        return READ.<List<Object>>run(over, ScriptOutputType.MULTI, new String[] {nodesKey()}, nodePrefix(),
                full ? "1" : "0").thenApply(reply -> parse(reply, full));
    }

    private Reading parse(List<Object> reply, boolean full) {
        long now = Long.parseLong((String) reply.get(0));
        List<Seen> nodes = new ArrayList<>();
        for (int i = 1; i + 3 < reply.size(); i += 4) {
            String nodeName = (String) reply.get(i);
            String heard = (String) reply.get(i + 1);
            String status = (String) reply.get(i + 2);
            String seconds = (String) reply.get(i + 3);
            if (heard.isEmpty() || status.isEmpty()) {
                continue; // its hash expired; the set forgets it on the next heartbeat
            }
            try {
                nodes.add(new Seen(nodeName, Long.parseLong(heard), JSON.readValue(status, NodeReport.class),
                        full && !seconds.isEmpty() ? JSON.readValue(seconds, SECONDS) : List.of()));
            } catch (IOException | NumberFormatException e) {
                LOG.log(System.Logger.Level.WARNING, "cluster: unreadable report of node " + nodeName + ": "
                        + e.getMessage());
            }
        }
        nodes.sort(Comparator.comparing(Seen::name));
        return new Reading(now, List.copyOf(nodes));
    }

    private boolean reachable(Seen seen, long now) {
        return now - seen.heardMillis() < settings.unreachableAfter().toMillis();
    }

    /** Requests in flight on the other reachable nodes, as last read (see the class comment for the bound). */
    long othersInFlight() {
        Reading reading = last;
        long sum = 0;
        for (Seen seen : reading.nodes()) {
            if (!seen.name().equals(name) && reachable(seen, reading.redisMillis())) {
                sum += seen.report().inFlight();
            }
        }
        return sum;
    }

    /** Nodes reachable at the last read, this one always included: what local limits scale by when degraded. */
    int reachableNodes() {
        return reachableNodes;
    }

    private int reachableIn(Reading reading) {
        int count = 1;
        for (Seen seen : reading.nodes()) {
            if (!seen.name().equals(name) && reachable(seen, reading.redisMillis())) {
                count++;
            }
        }
        return count;
    }

    /**
     * The fleet for the API: read now (within the admin deadline), or the last reading marked stale when Redis
     * does not answer.
     */
    ClusterView view(ClusterState nodeState, String redis) {
        Reading reading;
        boolean stale = false;
        try {
            reading = read(adminLink, true).get(settings.adminDeadline().multipliedBy(2).plusMillis(50).toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            reading = last;
            stale = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reading = last;
            stale = true;
        }
        List<NodeView> nodes = new ArrayList<>();
        int reachable = 0;
        long inFlight = 0;
        Map<Long, Map<RequestClass, ClassCounts>> bySecond = new TreeMap<>();
        for (Seen seen : reading.nodes()) {
            boolean up = reachable(seen, reading.redisMillis());
            NodeReport report = seen.report();
            nodes.add(new NodeView(seen.name(), report.admin(), up ? report.state() : NodeState.UNREACHABLE,
                    Instant.ofEpochMilli(seen.heardMillis()), report.inFlight(), report.policyVersion(),
                    report.startedAt(), seen.seconds()));
            if (up) {
                reachable++;
                inFlight += report.inFlight();
                for (SecondCounts second : seen.seconds()) {
                    Map<RequestClass, ClassCounts> sum = bySecond.computeIfAbsent(second.epochSecond(),
                            s -> new EnumMap<>(RequestClass.class));
                    second.byClass().forEach((cls, counts) -> sum.merge(cls, counts, NodeRegistry::add));
                }
            }
        }
        List<SecondCounts> seconds = new ArrayList<>();
        bySecond.forEach((second, byClass) -> seconds.add(new SecondCounts(second, byClass)));
        Instant at = reading.redisMillis() == 0 ? clock.instant() : Instant.ofEpochMilli(reading.redisMillis());
        return new ClusterView(name, nodeState, at, stale, redis, List.copyOf(nodes),
                new ClusterView.Totals(nodes.size(), reachable, inFlight, List.copyOf(seconds)));
    }

    private static ClassCounts add(ClassCounts a, ClassCounts b) {
        Map<Reason, Long> refused = new EnumMap<>(Reason.class);
        refused.putAll(a.refused());
        b.refused().forEach((reason, n) -> refused.merge(reason, n, Long::sum));
        return new ClassCounts(a.admitted() + b.admitted(), a.delayed() + b.delayed(), refused);
    }

    @Override
    public void close() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }
}
