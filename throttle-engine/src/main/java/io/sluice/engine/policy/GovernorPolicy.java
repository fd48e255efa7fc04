package io.sluice.engine.policy;

/**
 * The crawl governor's numbers (DESIGN.md, "Crawl governor"). Every one can be changed live: the
 * next permit or feedback uses the new value; what each domain has learned (its current rate, its
 * backoff, its breaker) is kept and only clamped to the new bounds.
 *
 * @param initialRate           requests per second a domain starts at
 * @param minRate               the rate is never cut below this
 * @param maxRate               nor raised above this
 * @param increasePerSecond     additive increase: requests per second gained per second of healthy,
 *                              busy crawling (workers are waiting for the domain)
 * @param decreaseFactor        multiplicative decrease on 429/503 or inflated latency (0 &lt; f &lt; 1)
 * @param latencyInflation      latency this many times the domain's baseline counts as a slow-down
 *                              signal; 0 turns the signal off
 * @param backoffBaseMillis     the block after a 429 without {@code Retry-After}; doubles per
 *                              incident that follows within {@code backoffForgiveSeconds}
 * @param backoffMaxMillis      the cap of that block
 * @param backoffForgiveSeconds a quiet spell after which the doubling starts again from the base
 * @param breakerErrorPercent   the breaker opens when more than this share of the last 60 s of
 *                              responses were errors (5xx or no answer)
 * @param breakerMinCalls       and at least this many responses were seen in those 60 s
 * @param breakerOpenSeconds    how long it stays open before trial requests
 * @param breakerTrialRequests  how many trial requests a half-open breaker lets through
 * @param giveUpAfterErrors     errors in a row after which the domain is given up (one alert)
 * @param maxHoldMillis         the longest a permit call may be held waiting for a grant
 */
public record GovernorPolicy(
        double initialRate,
        double minRate,
        double maxRate,
        double increasePerSecond,
        double decreaseFactor,
        double latencyInflation,
        int backoffBaseMillis,
        int backoffMaxMillis,
        int backoffForgiveSeconds,
        int breakerErrorPercent,
        int breakerMinCalls,
        int breakerOpenSeconds,
        int breakerTrialRequests,
        int giveUpAfterErrors,
        int maxHoldMillis) {

    public static final GovernorPolicy DEFAULTS = new GovernorPolicy(
            1.0, 0.05, 20.0, 0.1, 0.8, 3.0,
            1_000, 300_000, 5,
            10, 20, 60, 3,
            20, 30_000);

    /** {@code rate} clamped to {@code [minRate, maxRate]}. */
    public double clampRate(double rate) {
        return Math.max(minRate, Math.min(maxRate, rate));
    }
}
