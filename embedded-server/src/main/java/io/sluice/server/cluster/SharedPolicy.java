package io.sluice.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScriptOutputType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.state.AuditEntry;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/*
 * The cluster's policy in Redis, and how every node follows it.
 *
 * Keys (prefix "sluice:" by default):
 *   policy      hash {version, policy (JSON, as PolicyJson writes it), epoch}: the current document
 *   policy:log  stream of {version, policy, audit (JSON, or "" for a seed), node}: every change, trimmed
 *               to about ClusterSettings.logLength entries
 *
 * A change is one Lua script (policy-cas.lua): check the version, write the document, append to the log;
 * atomic in Redis, so two nodes racing from the same version cannot both win. The script runs by its SHA
 * and is sent again when Redis says NOSCRIPT (LuaScript).
 *
 * Each log entry carries the whole policy, so "apply" means "install this version if it is newer than
 * mine": a node applies by version, never by position in the log, and nothing is applied twice whether it
 * hears a change from its own compare-and-set, from the log, or again after a reconnect. The log is what
 * lets a node that was away catch up on every audit entry it missed (pub/sub would have dropped them).
 *
 * Redis restarted empty: the first node to notice seeds the document from its own policy (policy-seed.lua;
 * the highest version wins) with a new epoch; followers that see a new epoch read the new log from its start.
 */

/**
 * One versioned policy for the whole cluster: {@link #compareAndSet} changes it, {@link #follow} keeps this
 * node's copy (engine, {@code policy.json}, audit log: whatever the listener does) in step with it.
 */
public final class SharedPolicy implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SharedPolicy.class.getName());
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final LuaScript CAS = LuaScript.load("policy-cas");
    private static final LuaScript SEED = LuaScript.load("policy-seed");

    /** What a compare-and-set came to. */
    public sealed interface Outcome permits Applied, Conflict, Unavailable {
    }

    /** In Redis, in the log, and (when following) applied on this node before the call returned. */
    public record Applied(Policy policy) implements Outcome {
    }

    /** The cluster's version is not the one the change was based on: nothing changed. */
    public record Conflict(long currentVersion) implements Outcome {
    }

    /**
     * Redis did not confirm the change within the deadline (down, slow, or empty and not seeded yet). Nothing
     * changed, unless Redis applied it just before the deadline: then it reaches every node, this one
     * included, through the log like any other change.
     */
    public record Unavailable(String reason) implements Outcome {
    }

    private final String node;
    private final RedisLink link;
    private final RedisLink followLink;
    private final ClusterSettings settings;
    private final ScheduledExecutorService scheduler;
    private final String[] keys;
    private final Object applyLock = new Object();
    private volatile PolicyListener listener;
    private PolicyFollower follower;

    /**
     * @param link       the link for operators' changes (deadline: {@link ClusterSettings#adminDeadline()})
     * @param followLink a link of its own for the blocking log reads, which would hold up other commands
     */
    SharedPolicy(String node, RedisLink link, RedisLink followLink, ClusterSettings settings,
                 ScheduledExecutorService scheduler) {
        this.node = node;
        this.link = link;
        this.followLink = followLink;
        this.settings = settings;
        this.scheduler = scheduler;
        this.keys = new String[] {documentKey(), logKey()};
    }

    String documentKey() {
        return settings.key("policy");
    }

    String logKey() {
        return settings.key("policy:log");
    }

    /**
     * Replaces the cluster's policy if its version is still {@code expectedVersion}. The caller has
     * validated {@code proposed}; its own version is ignored (the new one is {@code expectedVersion + 1}).
     * Returns within about twice the admin deadline whatever Redis does.
     *
     * @param audit the operator's action, written to every node's audit log with the change
     */
    public Outcome compareAndSet(long expectedVersion, Policy proposed, AuditEntry audit) {
        Policy next = proposed.withVersion(expectedVersion + 1);
        List<Object> reply;
        try {
            reply = await(CAS.<List<Object>>run(link, ScriptOutputType.MULTI, keys, Long.toString(expectedVersion),
                    json(next), json(audit), node, Integer.toString(settings.logLength())));
        } catch (RedisCallException e) {
            return new Unavailable(e.getMessage());
        }
        long status = (Long) reply.get(0);
        if (status == -1) {
            return new Unavailable("Redis holds no cluster policy yet (restarted empty?); a node seeds it "
                    + "within a moment");
        }
        if (status == 0) {
            return new Conflict((Long) reply.get(1));
        }
        deliver(new PolicyChange(next, audit, node));
        return new Applied(next);
    }

    /**
     * Follows the cluster's policy from now on: the listener gets every newer version, each once, in
     * order, within about 100 ms of its change; after a disconnect it gets what it missed. When Redis holds
     * no policy, or an older one, this node's policy is put there (the highest version wins).
     */
    public synchronized void follow(PolicyListener newListener) {
        if (follower != null) {
            throw new IllegalStateException("already following");
        }
        this.listener = newListener;
        this.follower = new PolicyFollower(this, followLink, settings, scheduler);
        follower.start();
    }

    /** Hands a version to the listener unless it has it already: the one gate against applying twice. */
    void deliver(PolicyChange change) {
        PolicyListener current = listener;
        if (current == null) {
            return;
        }
        synchronized (applyLock) {
            long applied = current.current().version();
            if (change.version() <= applied) {
                return;
            }
            try {
                current.apply(change);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + " could not apply policy version "
                        + change.version() + ": " + e.getMessage(), e);
            }
        }
    }

    /** The version this node has applied. */
    long appliedVersion() {
        PolicyListener current = listener;
        return current == null ? 0 : current.current().version();
    }

    /** Puts this node's policy into Redis if Redis holds none or an older one; completes with the reply. */
    CompletableFuture<List<Object>> seed(Policy mine) {
        return SEED.run(followLink, ScriptOutputType.MULTI, keys, Long.toString(mine.version()), json(mine),
                UUID.randomUUID().toString(), node, Integer.toString(settings.logLength()));
    }

    PolicyListener listener() {
        return listener;
    }

    String node() {
        return node;
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for a Redis reply, at most the admin deadline (twice for EVALSHA then EVAL) plus a margin. */
    private <T> T await(CompletableFuture<T> reply) {
        Duration limit = settings.adminDeadline().multipliedBy(2).plusMillis(50);
        try {
            return reply.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new RedisCallException(ConnectionMonitor.describe(e.getCause()));
        } catch (TimeoutException e) {
            reply.cancel(false);
            throw new RedisCallException("Redis did not answer within the deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisCallException("interrupted");
        }
    }

    @Override
    public synchronized void close() {
        if (follower != null) {
            follower.close();
        }
    }

    /** A Redis call that did not come back in time or failed; the message says which. */
    private static final class RedisCallException extends RuntimeException {
        RedisCallException(String message) {
            super(message, null, false, false);
        }
    }
}
