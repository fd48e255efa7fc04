package io.sluice.server.cluster;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.InstantSource;

/**
 * Keeps this node's copy of the cluster's policy: the engine (the next request sees the change), then
 * {@code policy.json} and the audit log, so a node restarted while Redis is down comes back with the last
 * version it knew and the history of how it got there.
 */
public final class LocalPolicyMirror implements PolicyListener {
    private final ThrottleEngine engine;
    private final StateDirectory state;
    private final InstantSource clock;
    private final PolicyHistory history;

    public LocalPolicyMirror(ThrottleEngine engine, StateDirectory state, InstantSource clock) {
        this(engine, state, clock, new PolicyHistory(engine.policy()));
    }

    /** @param history told every version this node takes, so an edit based on it can be merged later */
    public LocalPolicyMirror(ThrottleEngine engine, StateDirectory state, InstantSource clock, PolicyHistory history) {
        this.engine = engine;
        this.state = state;
        this.clock = clock;
        this.history = history;
    }

    @Override
    public Policy current() {
        return engine.policy();
    }

    @Override
    public void apply(PolicyChange change) {
        long before = engine.policy().version();
        if (!engine.adoptPolicy(change.policy())) {
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
}
