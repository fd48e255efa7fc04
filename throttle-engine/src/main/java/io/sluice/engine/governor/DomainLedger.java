package io.sluice.engine.governor;

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

    /** Judges one response for the whole cluster (one cut per burst, whichever nodes hear it). */
    CompletionStage<LedgerAnswer> report(String domain, Observation observation, LedgerContext context);

    /** Applies an operator's change for every node. */
    CompletionStage<LedgerAnswer> change(String domain, LedgerChange change, LedgerContext context);
}
