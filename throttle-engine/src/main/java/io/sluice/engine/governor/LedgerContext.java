package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;

/**
 * What the asking node adds to a ledger call.
 *
 * @param policy      the governor's numbers now (the ledger applies the asking node's: a live edit reaches
 *                    every node within the policy's propagation time)
 * @param floorMicros the longest minimum delay this node knows for the domain (the operator's, robots.txt):
 *                    a ledger that lost its copy (restarted empty) still spaces grants by it
 * @param givenUpHere this node has the domain given up (saved): a ledger that lost its copy takes it back
 * @param jitter      a uniform number in [0, 1) for the backoff's jitter
 * @param worker      who asks or reports (its token's name), or null for a trusted in-process caller: the ledger
 *                    keeps the turns and credits of {@code DomainWorkers} for the cluster
 */
public record LedgerContext(GovernorPolicy policy, long floorMicros, boolean givenUpHere, double jitter,
        String worker) {
    public LedgerContext(GovernorPolicy policy, long floorMicros, boolean givenUpHere, double jitter) {
        this(policy, floorMicros, givenUpHere, jitter, null);
    }
}
