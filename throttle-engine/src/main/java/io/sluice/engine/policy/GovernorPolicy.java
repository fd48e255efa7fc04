package io.sluice.engine.policy;

/**
 * The crawl governor's numbers (docs/architecture.md, "Crawl governor"). Every one can be changed live: the
 * next permit or feedback uses the new value; what each domain has learned (its current rate, its
 * backoff, its breaker, its latency baseline) is kept and only clamped to the new bounds.
 *
 * <p>The four latency and slow-start numbers came later than the others: a policy file written
 * before them leaves them out and gets their defaults (they are boxed only for that; after
 * construction none is null).
 *
 * @param initialRate              requests per second a domain starts at
 * @param minRate                  the rate is never cut below this
 * @param maxRate                  nor raised above this
 * @param increasePerSecond        additive increase: requests per second gained per second of healthy,
 *                                 busy crawling (workers are waiting for the domain)
 * @param decreaseFactor           multiplicative decrease on a slow-down answer or a latency signal
 *                                 (0 &lt; f &lt; 1)
 * @param latencyInflation         the tolerance: a window's median latency this many times the domain's
 *                                 baseline (and above the floor and the normal spread) is inflated; two
 *                                 inflated windows in a row are a slow-down signal. 0 turns the signal off
 * @param backoffBaseMillis        the block after a slow-down answer without {@code Retry-After}; doubles
 *                                 per incident that follows within {@code backoffForgiveSeconds}
 * @param backoffMaxMillis         the cap of that block
 * @param backoffForgiveSeconds    a quiet spell after which the doubling starts again from the base
 * @param breakerErrorPercent      the breaker opens when more than this share of the last 60 s of
 *                                 responses were errors (5xx, no answer, 429, a 403 from a domain that
 *                                 served before)
 * @param breakerMinCalls          and at least this many responses were seen in those 60 s
 * @param breakerOpenSeconds       how long it stays open before trial requests
 * @param breakerTrialRequests     how many trial requests a half-open breaker lets through
 * @param giveUpAfterErrors        errors (5xx or no answer) in a row after which the domain is given up
 * @param maxHoldMillis            the longest a permit call may be held waiting for a grant
 * @param latencyFloorMillis       a rise of the median latency smaller than this many milliseconds is never
 *                                 a signal, however small the baseline
 * @param latencyWindow            answers per latency window (the short window); its median is judged
 *                                 once the window is full
 * @param latencyBaselineWindows   the baseline (the long window) follows window medians with a moving
 *                                 average over about this many windows
 * @param slowStartDoublingSeconds until a domain's first slow-down signal the rate doubles every this many
 *                                 seconds of busy, healthy crawling instead of rising additively; 0: no
 *                                 slow start
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
        int maxHoldMillis,
        Integer latencyFloorMillis,
        Integer latencyWindow,
        Integer latencyBaselineWindows,
        Double slowStartDoublingSeconds) {

    static final int DEFAULT_LATENCY_FLOOR_MILLIS = 50;
    static final int DEFAULT_LATENCY_WINDOW = 10;
    static final int DEFAULT_LATENCY_BASELINE_WINDOWS = 10;
    static final double DEFAULT_SLOW_START_DOUBLING_SECONDS = 10;

    public static final GovernorPolicy DEFAULTS = new GovernorPolicy(
            1.0, 0.05, 20.0, 0.1, 0.8, 2.0,
            1_000, 300_000, 5,
            10, 20, 60, 3,
            20, 30_000,
            DEFAULT_LATENCY_FLOOR_MILLIS, DEFAULT_LATENCY_WINDOW, DEFAULT_LATENCY_BASELINE_WINDOWS,
            DEFAULT_SLOW_START_DOUBLING_SECONDS);

    public GovernorPolicy {
        latencyFloorMillis = latencyFloorMillis == null ? DEFAULT_LATENCY_FLOOR_MILLIS : latencyFloorMillis;
        latencyWindow = latencyWindow == null ? DEFAULT_LATENCY_WINDOW : latencyWindow;
        latencyBaselineWindows = latencyBaselineWindows == null ? DEFAULT_LATENCY_BASELINE_WINDOWS
                : latencyBaselineWindows;
        slowStartDoublingSeconds = slowStartDoublingSeconds == null ? DEFAULT_SLOW_START_DOUBLING_SECONDS
                : slowStartDoublingSeconds;
    }

    /** {@code rate} clamped to {@code [minRate, maxRate]}. */
    public double clampRate(double rate) {
        return Math.max(minRate, Math.min(maxRate, rate));
    }

    /** These numbers with the rate bounds and the start rate changed. */
    public GovernorPolicy withRates(double initial, double min, double max) {
        return new GovernorPolicy(initial, min, max, increasePerSecond, decreaseFactor, latencyInflation,
                backoffBaseMillis, backoffMaxMillis, backoffForgiveSeconds, breakerErrorPercent, breakerMinCalls,
                breakerOpenSeconds, breakerTrialRequests, giveUpAfterErrors, maxHoldMillis, latencyFloorMillis,
                latencyWindow, latencyBaselineWindows, slowStartDoublingSeconds);
    }

    /** These numbers with another additive increase and slow start (0 and 0: a fixed rate). */
    public GovernorPolicy withIncrease(double perSecond, double doublingSeconds) {
        return new GovernorPolicy(initialRate, minRate, maxRate, perSecond, decreaseFactor, latencyInflation,
                backoffBaseMillis, backoffMaxMillis, backoffForgiveSeconds, breakerErrorPercent, breakerMinCalls,
                breakerOpenSeconds, breakerTrialRequests, giveUpAfterErrors, maxHoldMillis, latencyFloorMillis,
                latencyWindow, latencyBaselineWindows, doublingSeconds);
    }

    /** These numbers with another multiplicative decrease. */
    public GovernorPolicy withDecreaseFactor(double factor) {
        return new GovernorPolicy(initialRate, minRate, maxRate, increasePerSecond, factor, latencyInflation,
                backoffBaseMillis, backoffMaxMillis, backoffForgiveSeconds, breakerErrorPercent, breakerMinCalls,
                breakerOpenSeconds, breakerTrialRequests, giveUpAfterErrors, maxHoldMillis, latencyFloorMillis,
                latencyWindow, latencyBaselineWindows, slowStartDoublingSeconds);
    }

    /** These numbers with another latency signal (tolerance 0 turns it off). */
    public GovernorPolicy withLatency(double tolerance, int floorMillis, int window, int baselineWindows) {
        return new GovernorPolicy(initialRate, minRate, maxRate, increasePerSecond, decreaseFactor, tolerance,
                backoffBaseMillis, backoffMaxMillis, backoffForgiveSeconds, breakerErrorPercent, breakerMinCalls,
                breakerOpenSeconds, breakerTrialRequests, giveUpAfterErrors, maxHoldMillis, floorMillis, window,
                baselineWindows, slowStartDoublingSeconds);
    }
}
