package io.sluice.engine.governor;

import java.time.Instant;

/**
 * Where the governor's pace is decided now.
 *
 * @param mode   {@code LOCAL} (one node), {@code CLUSTER} (the shared ledger) or {@code DEGRADED} (a cluster
 *               node that cannot reach the ledger, pacing on its own copy at {@code 1 / nodes} of the rate)
 * @param nodes  the nodes sharing the pace as last seen (1 on a single node)
 * @param reason why, in words
 * @param since  when this mode began
 */
public record Pacing(Mode mode, int nodes, String reason, Instant since) {
    /** See {@link Pacing}. */
    public enum Mode {
        LOCAL,
        CLUSTER,
        DEGRADED
    }

    static Pacing local(Instant since) {
        return new Pacing(Mode.LOCAL, 1, "one node: the pace is kept in memory", since);
    }
}
