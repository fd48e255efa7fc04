package io.sluice.server.cluster;

import io.sluice.engine.PolicyWriter;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.BanChange;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Set;

/**
 * Keeps this node's copy of the cluster's policy: the engine (the next request sees the change), then
 * {@code policy.json} and the audit log, so a node restarted while Redis is down comes back with the last
 * version it knew and the history of how it got there.
 */
public final class LocalPolicyMirror implements PolicyListener {
    private final ThrottleEngine engine;
    /** The engine's one writer: the versions taken here were validated, recorded and audited where they were made. */
    private final PolicyWriter writer;
    private final StateDirectory state;
    private final InstantSource clock;
    private final PolicyHistory history;

    public LocalPolicyMirror(PolicyWriter writer, StateDirectory state, InstantSource clock) {
        this(writer, state, clock, new PolicyHistory(writer.policy()));
    }

    /** @param history told every version this node takes, so an edit based on it can be merged later */
    public LocalPolicyMirror(PolicyWriter writer, StateDirectory state, InstantSource clock, PolicyHistory history) {
        this.writer = writer;
        this.engine = writer.engine();
        this.state = state;
        this.clock = clock;
        this.history = history;
    }

    @Override
    public Policy current() {
        return engine.policy();
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    /** The engine judges ban expiry on Redis's clock. */
    @Override
    public void redisClockOffset(long millis) {
        engine.judgeBanExpiryWithOffset(millis);
    }

    @Override
    public void apply(PolicyChange change) {
        if (change.isBans()) {
            applyBans(change);
            return;
        }
        long before = engine.policy().version();
        if (!writer.adopt(change.policy())) {
            return;
        }
        history.remember(change.policy());
        AuditEntry audit = change.audit() != null ? change.audit() : new AuditEntry(clock.instant(), "sluice",
                "cluster.sync", "took the cluster's policy version " + change.version() + " (had " + before
                        + (change.node() == null ? ")" : ", from node " + change.node() + ")"), null, null);
        try {
            state.savePolicy(change.policy());
            state.audit().append(audit);
        } catch (IOException e) {
            // In force in memory and in Redis; the disk copy catches up with the next change.
            throw new UncheckedIOException("cannot save policy version " + change.version() + " locally: "
                    + e.getMessage(), e);
        }
    }

    /**
     * A batch of automatic bans, on the version before it (SharedPolicy checks): in force, then {@code policy.json}
     * and one audit entry per ban this node did not hold already (or held, for a removal), in one write.
     */
    private void applyBans(PolicyChange change) {
        Policy live = engine.policy();
        Set<String> held = new HashSet<>();
        live.bans().forEach(ban -> held.add(ban.id()));
        BanChange made = new BanChange(change.bans().added().stream().filter(ban -> !held.contains(ban.id())).toList(),
                change.bans().removed().stream().filter(ban -> held.contains(ban.id())).toList());
        Policy next = made.applyTo(live).withVersion(change.version());
        if (!writer.adopt(next)) {
            return;
        }
        history.rememberAutomatic(next, made);
        try {
            state.savePolicy(next);
            state.audit().appendAll(made.auditEntries(clock.instant()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save policy version " + change.version() + " locally: "
                    + e.getMessage(), e);
        }
    }
}
