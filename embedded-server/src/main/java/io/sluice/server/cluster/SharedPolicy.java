package io.sluice.server.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScriptOutputType;
import com.fasterxml.jackson.core.type.TypeReference;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.BanChange;
import java.time.InstantSource;
import java.util.ArrayList;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.state.AuditEntry;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/*
 * The cluster's policy in Redis, and how every node follows it.
 *
 * Keys (prefix "sluice:{fleet}:" by default: one hash tag, one Redis Cluster slot, ClusterSettings.fleetKey):
 *   policy      hash {version, policy (JSON, as PolicyJson writes it), epoch}: the current document
 *   policy:log  stream of {version, policy, audit (JSON, or "" for a seed), node}: every change, trimmed
 *               to about ClusterSettings.logLength entries; or, for a batch of automatic bans,
 *               {version, kind "bans", added (JSON list of bans), removed (JSON list of ids), node}
 *   policy:bans hash {ban id: ban JSON, or "" once removed}: the automatic bans changed since the document's policy
 *               was written (a whole policy written clears it, since it holds them)
 *
 * A change is one Lua script (policy-cas.lua): check the version, write the document, append to the log;
 * atomic in Redis, so two nodes racing from the same version cannot both win. The script runs by its SHA
 * and is sent again when Redis says NOSCRIPT (LuaScript).
 *
 * An operator's change carries the whole policy, so "apply" means "install this version if it is newer than
 * mine": a node applies by version, never by position in the log, and nothing is applied twice whether it
 * hears a change from its own compare-and-set, from the log, or again after a reconnect. The log is what
 * lets a node that was away catch up on every audit entry it missed (pub/sub would have dropped them).
 *
 * Automatic bans travel as bans (policy-bans.lua): a batch takes the next version with no compare-and-set (bans do
 * not conflict), and its log entry holds the batch alone, so the log grows with the bans, not with the policy
 * times the bans. A node applies a batch only on the version just before it; one that finds a gap takes the
 * document instead (policy-read.lua: the policy, plus the bans changed since it was written). Expired bans are
 * removed by the same script only once their expiry has passed on Redis's clock, and every node judges expiry on
 * Redis's clock too (the follower reads Redis's TIME at each catch-up: PolicyListener.redisClockOffset), so the
 * nodes end a ban together.
 *
 * Redis restarted empty: the first node to notice seeds the document from its own policy (policy-seed.lua;
 * the highest version wins) with a new epoch; followers that see a new epoch read the new log from its start.
 * An operator's change that gets there first seeds it too, from the node's policy, in the same script as the change
 * (policy-cas.lua; both share policy-seeding.lua): the seed and the change are one atomic step, so another node's
 * seed lands before both (the change is then judged against it) or after both (where, like any seed, it changes
 * nothing unless that node knows a higher version than the change made).
 */

/**
 * One versioned policy for the whole cluster: {@link #compareAndSet} changes it, {@link #follow} keeps this
 * node's copy (engine, {@code policy.json}, audit log: whatever the listener does) in step with it.
 */
public final class SharedPolicy implements AutoCloseable {
    /** A script's answer when Redis holds no document (and this node, not following yet, has none to seed). */
    private static final Unavailable NOT_SEEDED =
            new Unavailable("Redis holds no cluster policy yet (restarted empty?); a node seeds it within a moment");
    private static final System.Logger LOG = System.getLogger(SharedPolicy.class.getName());
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final TypeReference<List<Ban>> BAN_LIST = new TypeReference<>() { };
    private static final TypeReference<List<String>> ID_LIST = new TypeReference<>() { };
    private static final LuaScript CAS = LuaScript.load("policy-cas", "policy-seeding");
    private static final LuaScript SEED = LuaScript.load("policy-seed", "policy-seeding");
    private static final LuaScript BANS = LuaScript.load("policy-bans");
    private static final LuaScript READ = LuaScript.load("policy-read");

    /** What a compare-and-set came to. */
    public sealed interface Outcome permits Applied, BansApplied, Conflict, Unavailable {
    }

    /** In Redis, in the log, and (when following) applied on this node before the call returned. */
    public record Applied(Policy policy) implements Outcome {
    }

    /**
     * A batch of automatic bans, made as {@code version} (and applied on this node when it had the version before),
     * or nothing left to make ({@code made} empty: added already, or not expired on Redis's clock yet).
     */
    public record BansApplied(long version, BanChange made) implements Outcome {
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
    private volatile PolicyFollower follower;

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
        this.keys = new String[] {documentKey(), logKey(), bansKey()};
    }

    String documentKey() {
        return settings.fleetKey("policy");
    }

    String logKey() {
        return settings.fleetKey("policy:log");
    }

    String bansKey() {
        return settings.fleetKey("policy:bans");
    }

    /**
     * Replaces the cluster's policy if its version is still {@code expectedVersion}. The caller has
     * validated {@code proposed}; its own version is ignored (the new one is {@code expectedVersion + 1}).
     * When Redis holds no policy (restarted empty, and no node has put one back yet), a following node's own
     * policy is seeded first, in the same atomic script, and the change judged against it: an operator's edit does
     * not fail for a moment nobody can see; nor does it while the link reconnects to a Redis restarted a moment ago (it
     * waits for the link up to the admin deadline). Returns within about three times the admin deadline whatever Redis
     * does.
     *
     * @param audit the operator's action, written to every node's audit log with the change
     */
    public Outcome compareAndSet(long expectedVersion, Policy proposed, AuditEntry audit) {
        Policy next = proposed.withVersion(expectedVersion + 1);
        List<String> args = new ArrayList<>(List.of(Long.toString(expectedVersion), json(next), json(audit), node,
                Integer.toString(settings.logLength())));
        PolicyListener current = listener;
        if (current != null) {
            // Redis empty (restarted, not seeded yet): the script seeds this node's policy first, in the same step.
            Policy mine = current.current();
            args.addAll(List.of(Long.toString(mine.version()), json(mine), UUID.randomUUID().toString()));
        }
        link.awaitConnected(settings.adminDeadline());
        List<Object> reply;
        try {
            reply = await(CAS.<List<Object>>run(link, ScriptOutputType.MULTI, keys, args.toArray(new String[0])));
        } catch (RedisCallException e) {
            return new Unavailable(e.getMessage());
        }
        long status = (Long) reply.get(0);
        if (status == -1) {
            return NOT_SEEDED;
        }
        if (status == 0) {
            return new Conflict((Long) reply.get(1));
        }
        deliver(new PolicyChange(next, audit, node));
        return new Applied(next);
    }

    /**
     * Adds a batch of automatic bans and removes expired ones (only those whose expiry passed on Redis's clock), as
     * the next version, whatever it is: no compare-and-set, bans do not conflict. The log entry holds the batch,
     * not the policy. Returns within about twice the admin deadline whatever Redis does.
     */
    public Outcome addBans(BanChange change) {
        List<String> args = new ArrayList<>();
        args.add(node);
        args.add(Integer.toString(settings.logLength()));
        args.add(Integer.toString(change.added().size()));
        for (Ban ban : change.added()) {
            args.add(ban.id());
            args.add(json(ban));
        }
        for (Ban ban : change.removed()) {
            args.add(ban.id());
            args.add(Long.toString(ban.expiresAt() == null ? Long.MAX_VALUE : ban.expiresAt().toEpochMilli()));
        }
        List<Object> reply;
        try {
            reply = await(BANS.<List<Object>>run(link, ScriptOutputType.MULTI, keys, args.toArray(new String[0])));
        } catch (RedisCallException e) {
            return new Unavailable(e.getMessage());
        }
        long status = (Long) reply.get(0);
        if (status == -1) {
            return NOT_SEEDED;
        }
        if (status == 0) {
            return new BansApplied((Long) reply.get(1), new BanChange(List.of(), List.of()));
        }
        long version = (Long) reply.get(1);
        PolicyListener current = listener;
        BanChange made = bans(reply.get(3) == null ? "[]" : reply.get(3).toString(), ids(reply.get(4)),
                current == null ? null : current.current());
        deliver(PolicyChange.ofBans(version, made, node));
        return new BansApplied(version, made);
    }

    private static String ids(Object reply) {
        return reply == null ? "[]" : reply.toString();
    }

    /**
     * A batch as the log holds it: the bans added, and the ids removed, which are looked up in {@code live} (the
     * policy this node runs) for the audit; an id it does not hold is gone already.
     */
    static BanChange bans(String addedJson, String removedIds, Policy live) {
        try {
            List<Ban> added = JSON.readValue(addedJson, BAN_LIST);
            List<String> ids = JSON.readValue(removedIds, ID_LIST);
            List<Ban> removed = new ArrayList<>();
            if (live != null && !ids.isEmpty()) {
                Set<String> gone = new HashSet<>(ids);
                live.bans().stream().filter(ban -> gone.contains(ban.id())).forEach(removed::add);
            }
            return new BanChange(added, removed);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The cluster's policy as Redis holds it now, in one read: the document's policy with the automatic bans changed
     * since it was written, at the document's version; null when Redis holds none.
     */
    CompletableFuture<Policy> document() {
        return READ.<List<Object>>run(followLink, ScriptOutputType.MULTI, keys).thenApply(reply -> {
            if (reply == null || reply.isEmpty()) {
                return null;
            }
            long version = Long.parseLong(reply.get(0).toString());
            Policy policy;
            try {
                policy = JSON.readValue(reply.get(1).toString(), Policy.class);
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
            List<?> since = (List<?>) reply.get(2);
            List<Ban> added = new ArrayList<>();
            Set<String> removed = new HashSet<>();
            for (int i = 0; i + 1 < since.size(); i += 2) {
                String value = since.get(i + 1).toString();
                if (value.isEmpty()) {
                    removed.add(since.get(i).toString());
                } else {
                    try {
                        added.add(JSON.readValue(value, Ban.class));
                    } catch (JsonProcessingException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            List<Ban> gone = policy.bans().stream().filter(ban -> removed.contains(ban.id())).toList();
            return new BanChange(added, gone).applyTo(policy).withVersion(version);
        });
    }

    /** The difference between Redis's clock and {@code local}'s, read with {@code TIME} (half a round trip off). */
    CompletableFuture<Long> clockOffset(InstantSource local) {
        long before = local.millis();
        return followLink.<List<String>>call(c -> c.time()).thenApply(time -> {
            long after = local.millis();
            long redis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
            return redis - (before + after) / 2;
        });
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
        // Once caught up, ready the operator's link for the first change as for the next ones: its connection to
        // every master open and the change scripts cached there, so the first edit after start is one EVALSHA on an
        // open connection like any other, not a connect, a NOSCRIPT and an EVAL (issue 50, item 5).
        follower.caughtUp().thenRun(() -> {
            CAS.cacheOnEveryMaster(link);
            BANS.cacheOnEveryMaster(link);
        });
        follower.start();
    }

    /**
     * True from {@link #follow} until the follower's first catch-up has ended: this node may not run the cluster's
     * version yet, nor read its log, so a change made now would reach it late. The node does not say it is healthy
     * meanwhile ({@link ClusterNode#state}). False when not following at all.
     */
    public boolean joining() {
        PolicyFollower following = follower;
        return following != null && !following.caughtUp().isDone();
    }

    /**
     * Hands a version to the listener unless it has it already: the one gate against applying twice. A batch of bans
     * applies only on the version just before it.
     *
     * @return false when it is a batch of bans that does not follow this node's version (a gap: take the document)
     */
    boolean deliver(PolicyChange change) {
        PolicyListener current = listener;
        if (current == null) {
            return true;
        }
        synchronized (applyLock) {
            long applied = current.current().version();
            if (change.version() <= applied) {
                return true;
            }
            if (change.isBans() && change.version() != applied + 1) {
                return false;
            }
            try {
                current.apply(change);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + " could not apply policy version "
                        + change.version() + ": " + e.getMessage(), e);
            }
            return true;
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
