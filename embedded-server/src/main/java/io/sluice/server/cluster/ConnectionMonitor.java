package io.sluice.server.cluster;

import io.lettuce.core.RedisCommandTimeoutException;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Says whether this node's Redis is {@link ClusterState#HEALTHY} or {@link ClusterState#DEGRADED}, from a
 * {@code PING} every heartbeat on the link the request path uses: one unanswered within the deadline (slow)
 * or refused (gone) makes the node degraded at once; {@code recoverAfter} answered in a row make it healthy
 * again, so a flapping Redis cannot flood the log. Every change of state is one log line, and the listeners
 * hear it (on the cluster's scheduler thread: they must not block).
 */
final class ConnectionMonitor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConnectionMonitor.class.getName());

    /** One change of state. */
    record Change(ClusterState state, String reason, Instant at) {
    }

    private final String node;
    private final RedisLink link;
    private final RedisEndpoint endpoint;
    private final ClusterSettings settings;
    private final InstantSource clock;
    private final List<Consumer<Change>> listeners = new CopyOnWriteArrayList<>();
    private volatile Change current;
    private int answeredInARow;
    private boolean probing;
    private ScheduledFuture<?> schedule;

    ConnectionMonitor(String node, RedisLink link, RedisEndpoint endpoint, ClusterSettings settings,
                      InstantSource clock) {
        this.node = node;
        this.link = link;
        this.endpoint = endpoint;
        this.settings = settings;
        this.clock = clock;
        // Degraded until Redis has answered: a node that has not reached Redis yet serves on local state.
        this.current = new Change(ClusterState.DEGRADED, "connecting to " + endpoint, clock.instant());
    }

    void start(ScheduledExecutorService scheduler) {
        schedule = scheduler.scheduleWithFixedDelay(this::probe, 0, settings.heartbeat().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    void onChange(Consumer<Change> listener) {
        listeners.add(listener);
    }

    ClusterState state() {
        return current.state();
    }

    /** The latest change: the state, why, and since when. */
    Change current() {
        return current;
    }

    private void probe() {
        synchronized (this) {
            if (probing) {
                return; // the previous PING is still within its deadline
            }
            probing = true;
        }
        link.ping().whenComplete((pong, failure) -> {
            synchronized (this) {
                probing = false;
            }
            if (failure == null) {
                answered();
            } else {
                failed(describe(failure));
            }
        });
    }

    /** A request-path call to Redis that missed its deadline or was refused counts like a failed probe. */
    void failed(String why) {
        Change change = null;
        synchronized (this) {
            answeredInARow = 0;
            if (current.state() != ClusterState.DEGRADED) {
                change = new Change(ClusterState.DEGRADED, why, clock.instant());
                current = change;
            }
        }
        announce(change);
    }

    private void answered() {
        Change change = null;
        synchronized (this) {
            answeredInARow++;
            if (current.state() != ClusterState.HEALTHY && answeredInARow >= settings.recoverAfter()) {
                change = new Change(ClusterState.HEALTHY, "Redis answers within " + settings.deadline().toMillis()
                        + " ms", clock.instant());
                current = change;
            }
        }
        announce(change);
    }

    private void announce(Change change) {
        if (change == null) {
            return;
        }
        if (change.state() == ClusterState.HEALTHY) {
            LOG.log(System.Logger.Level.INFO, "cluster: node " + node + " is HEALTHY: " + endpoint + " answers");
        } else {
            LOG.log(System.Logger.Level.WARNING, "cluster: node " + node + " is DEGRADED (" + change.reason()
                    + "): serving on local state until " + endpoint + " answers again");
        }
        for (Consumer<Change> listener : listeners) {
            try {
                listener.accept(change);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "cluster state listener failed", e);
            }
        }
    }

    /** A short reason for the log and the API: timed out, refused while disconnected, or Redis's error. */
    static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
            return "Redis did not answer within the deadline";
        }
        if (cause instanceof RedisUnavailableException) {
            return "not connected to Redis";
        }
        String message = cause.getMessage();
        if (message != null && (message.contains("not connected") || message.contains("disconnected")
                || message.contains("Connection closed"))) {
            return "connection to Redis lost";
        }
        return "Redis error: " + (message == null ? cause.getClass().getSimpleName() : message);
    }

    @Override
    public void close() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }
}
