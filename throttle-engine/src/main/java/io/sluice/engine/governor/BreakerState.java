package io.sluice.engine.governor;

/** A domain's circuit breaker. */
public enum BreakerState {
    /** Requests flow at the domain's rate. */
    CLOSED,
    /** Too many errors: no request until the open time has passed. */
    OPEN,
    /** A few trial requests decide whether to close again or reopen. */
    HALF_OPEN
}
