package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import io.sluice.server.change.BanChange;
import io.sluice.server.state.AuditEntry;

/**
 * One version of the cluster's policy, as a node receives it: a whole policy (an operator's change, a seed) or a
 * batch of automatic bans (escalation's, and expired ones removed) made on the version before it.
 *
 * @param version the version it makes
 * @param policy  the whole policy at that version, or null for a batch of bans
 * @param bans    the batch of bans, or null for a whole policy: applied only to version {@code version - 1}
 * @param audit   the operator's action that made a whole policy, or null (seeded, taken from the document, or a batch
 *                of bans, whose entries each node writes from the bans)
 * @param node    the node that wrote it
 */
public record PolicyChange(long version, Policy policy, BanChange bans, AuditEntry audit, String node) {

    /** A whole policy. */
    public PolicyChange(Policy policy, AuditEntry audit, String node) {
        this(policy.version(), policy, null, audit, node);
    }

    /** A batch of automatic bans making {@code version}. */
    public static PolicyChange ofBans(long version, BanChange bans, String node) {
        return new PolicyChange(version, null, bans, null, node);
    }

    /** Whether this is a batch of bans, which applies only on the version before it. */
    public boolean isBans() {
        return policy == null;
    }
}
