package io.sluice.engine;

import io.sluice.engine.policy.Ban;

/**
 * Where the engine sends the bans it makes by itself (escalation): the one writer of the policy, which writes,
 * audits and installs them off the request path. The ban is already in force on this engine when it is proposed
 * (see {@link ThrottleEngine#proposeAutomaticBansTo}).
 */
@FunctionalInterface
public interface AutomaticBanProposals {

    /**
     * Takes {@code ban} to be written. Called on the request thread that earned it: returns at once, with no I/O
     * and no lock another thread holds for long.
     *
     * @return false when it cannot take the ban (its queue is full): the ban stays in force on this engine until it
     *         expires, but is not written, audited nor carried to other nodes
     */
    boolean propose(Ban ban);
}
