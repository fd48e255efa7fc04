package io.sluice.engine;

/**
 * Stable reason codes for what a rule did to a request. They appear in telemetry, the access log,
 * refusal bodies and the admin API, so their names are a public contract.
 */
public enum Reason {
    PAUSED(503),
    BANNED(403),
    CRAWLER_SPACING(503),
    CRAWLERS_BUSY(503),
    HIT_STACK(503),
    /** A route's own, stricter hit stack. */
    ROUTE_LIMIT(503),
    /** The hit stack of the client's address (all its user agents; an IPv6 /64 by default). */
    ADDRESS_HIT_STACK(503),
    CLIENT_CONCURRENCY(503),
    /** Requests in flight from the client's address (all its user agents). */
    ADDRESS_CONCURRENCY(503),
    LOAD(503),
    /**
     * The browser check: a page navigation claiming a browser, without a valid pass, answered with the interstitial
     * that lets a real browser earn one.
     */
    CHALLENGE(403),
    /** The browser check: a browser claim without a pass, from a network under challenge, not a page (a POST). */
    PASS_REQUIRED(403),
    /** The browser check: a network's budget for browser claims without a pass is spent (and it is not a page). */
    NETWORK_BUDGET(503),
    /**
     * The browser check: a network's requests in flight (without a pass, or on one) are at its limit, and this one is
     * not a page (a page is challenged instead).
     */
    NETWORK_CONCURRENCY(503),
    /**
     * The agent's category is refused by the policy ({@code agents.categories}); the refusal carries 403, or 402 where
     * the operator's rule says so.
     */
    CATEGORY(403),
    /** The client fetched the trap path ({@code agents.trap}), which robots.txt disallows for every agent. */
    TRAP(403),
    /** Progressive delay: the request was held back, not refused. */
    DELAYED(200);

    private final int httpStatus;

    Reason(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    /** The HTTP status a refusal for this reason carries. */
    public int httpStatus() {
        return httpStatus;
    }
}
