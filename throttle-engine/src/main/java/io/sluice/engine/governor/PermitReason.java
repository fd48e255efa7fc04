package io.sluice.engine.governor;

/** Why a permit was not granted now. */
public enum PermitReason {
    /** The domain's pacer: the next request slot is later. */
    PACING,
    /** The domain answered with {@code Retry-After}; nobody fetches from it before that passes. */
    RETRY_AFTER,
    /** The domain answered 429 without {@code Retry-After}; a doubling backoff is running. */
    BACKOFF,
    /** Too many errors in the last minute; the breaker is open or its trial requests are out. */
    BREAKER_OPEN,
    /** Too many errors in a row; only an operator brings the domain back. */
    GIVEN_UP,
    /**
     * A new domain, and the cluster keeps as many domains as it may (as many as one node's table, every node
     * together): it waits until one idle long enough is forgotten. A domain kept already is never refused so.
     */
    DOMAIN_LIMIT
}
