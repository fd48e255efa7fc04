package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;

/**
 * One version of the cluster's policy, as a node receives it.
 *
 * @param policy the whole policy at that version (never a diff, so applying the newest is always enough)
 * @param audit  the operator's action that made it, or null when the node takes a version without one
 *               (the cluster was seeded, or the log entries it missed were trimmed)
 * @param node   the node that wrote it
 */
public record PolicyChange(Policy policy, AuditEntry audit, String node) {

    public long version() {
        return policy.version();
    }
}
