package io.sluice.engine.governor;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A shared {@link DomainLedger}'s answer that it keeps as many domains as it may, every node together, and that the
 * domains asked about are not among them: it made nothing for them. Not a failure of the ledger (the node keeps
 * pacing with the cluster): a permit is refused with {@link PermitReason#DOMAIN_LIMIT} until one is forgotten, and a
 * report is judged on this node alone. An operator's change is never refused so.
 */
public final class DomainLimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long waitMicros;

    /**
     * @param limit      the most domains the ledger keeps
     * @param waitMicros until the first domain it keeps may be forgotten (at least 1)
     */
    public DomainLimitException(int limit, long waitMicros) {
        super("the cluster keeps " + limit + " domains, its most: a new domain waits until one is forgotten", null,
                false, false);
        this.waitMicros = Math.max(1, waitMicros);
    }

    /** Until the first domain the ledger keeps may be forgotten, micros. */
    public long waitMicros() {
        return waitMicros;
    }

    /** The one {@code failure} is or wraps (in completion and execution exceptions), or null. */
    public static DomainLimitException in(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof DomainLimitException limit ? limit : null;
    }
}
