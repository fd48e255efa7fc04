package io.sluice.engine.governor;

/**
 * An operator's change to a domain, made through any node, for the shared ledger.
 *
 * @param kind  what changes
 * @param value the rate (requests per second) or the minimum delay (micros); unused otherwise
 */
public record LedgerChange(Kind kind, double value) {
    /** The operator's actions on a domain. */
    public enum Kind {
        /** Sets the learned rate; adaptation goes on additively from there. */
        RATE,
        /** Sets the operator's minimum gap between two requests (0 removes it). */
        MIN_DELAY,
        /** Forgets what was learned; keeps the minimum delay and the given-up mark. */
        RESET,
        /** Brings a given-up domain back with a closed breaker. */
        REVIVE
    }
}
