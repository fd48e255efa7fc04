package io.sluice.engine.governor;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where the part of a domain's state that decides grants lives when it must be one for several nodes: the
 * next slot, the rate and its cuts, the {@code Retry-After} floor and backoff, the breaker, give-up. Without
 * one ({@link CrawlGovernor#shareWith} never called) it lives in this JVM, in the governor's own domain
 * states, as on a single node. What stays with the node that hears it: the latency detector (its verdict is
 * passed on), the last statuses and the permit counts.
 *
 * <p>Every call completes within the ledger's deadline, answered or failed: a failure (or
 * {@link #available()} false) makes the governor pace on its own copy at {@code 1 / nodes()} of the rate,
 * so the nodes together keep about the cluster's pace, until the ledger answers again.
 *
 * <p>A ledger keeps a bounded number of domains, every node together, as a node's own table does: a domain new to it
 * past that completes {@link #acquire}, {@link #acquireAny} (when every domain named is new) and {@link #report}
 * with a {@link DomainLimitException}, which is an answer, not a failure. {@link #change} is never refused so.
 */
public interface DomainLedger {

    /** False while the ledger is known unreachable: the governor does not ask it and paces locally. */
    boolean available();

    /** Why it is not available, for the log and the snapshot. */
    String unavailableReason();

    /** The nodes that shared the ledger when it was last seen (at least 1): the local pace's divisor. */
    int nodes();

    /** Takes the domain's next slot if it is open now, atomically for every node. */
    CompletionStage<LedgerAnswer> acquire(String domain, LedgerContext context);

    /**
     * Takes the next slot of whichever of {@code domains} has it first (the one whose slot opened, or opens,
     * earliest; a tie goes to the first in the list), atomically for every node: the same choice as
     * {@link CrawlGovernor#acquireAny} makes on one node. Not granted, the answer is that domain's wait.
     *
     * @param contexts one per domain, in the same order
     */
    CompletionStage<LedgerChoice> acquireAny(List<String> domains, List<LedgerContext> contexts);

    /** Judges one response for the whole cluster (one cut per burst, whichever nodes hear it). */
    CompletionStage<LedgerAnswer> report(String domain, Observation observation, LedgerContext context);

    /** Applies an operator's change for every node. */
    CompletionStage<LedgerAnswer> change(String domain, LedgerChange change, LedgerContext context);
}
