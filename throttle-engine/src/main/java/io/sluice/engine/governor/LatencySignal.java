package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.Arrays;

/**
 * Says when a domain's latency is a congestion signal: a sustained rise well above the site's
 * normal spread, never one slow answer. Not thread-safe: its domain's lock guards it.
 *
 * <p>Real sites are noisy: heavy tails, cache misses, GC pauses, shared hosting. So, as in
 * delay-based congestion control (TCP Vegas and BBR compare recent round trips with a base one;
 * Netflix's Gradient2 compares a short window with a long one under a tolerance), two windows are
 * compared:
 * <ul>
 *   <li>the <b>short window</b>: the median of the last {@code latencyWindow} answers. A median,
 *       not a mean: one answer in the tail cannot move it; half the window must be slow;</li>
 *   <li>the <b>long window</b>, the baseline: a moving average of window medians over about
 *       {@code latencyBaselineWindows} windows, with the average distance of a median from it as
 *       the site's normal spread.</li>
 * </ul>
 * A full window is <i>inflated</i> when its median is above all of: {@code latencyInflation} times
 * the baseline (the tolerance), the baseline plus {@code latencyFloorMillis} (a site answering in
 * 2 ms that now answers in 6 ms is not congested) and the baseline plus four times the spread (as
 * TCP's retransmission timer allows four mean deviations). Two inflated windows in a row are the
 * signal, so a slow spell shorter than a window (a GC pause, a cold cache) never is.
 *
 * <p>An inflated window leaves the baseline where it is, so congestion shows as congestion instead
 * of becoming the new normal (a queue we built would otherwise be learned as the site's latency).
 * But a site that has become slower for good, not because of us, must not pin the rate at its
 * floor: when {@link #UNHEEDED_SIGNALS} signals in a row (each followed by a cut) did not bring the
 * latency back, our pace is not the cause, and the latency of now becomes the baseline. A baseline
 * more than twice the median of two windows in a row is stale (a slow start of the site, a spell of
 * slowness now over) and is replaced by it.
 */
final class LatencySignal {
    /** Windows averaged before judging: a baseline from one window would be a guess. */
    static final int WARM_UP_WINDOWS = 3;
    /** How many mean deviations above the baseline are still the site's normal spread. */
    static final double SPREAD_MULTIPLE = 4;
    /** Inflated windows in a row that make a signal. */
    static final int SUSTAINED_WINDOWS = 2;
    /** Signals in a row, with no calm window between, after which the latency is the site's, not ours. */
    static final int UNHEEDED_SIGNALS = 4;

    private long[] window = new long[0];
    private int filled;
    private int windows;
    private double baseline;
    private double spread;
    private int inflatedInARow;
    private int signalsInARow;
    private int staleInARow;

    /**
     * Counts one healthy answer's latency.
     *
     * @return true when this answer completes the second inflated window in a row
     */
    boolean add(long latencyMillis, GovernorPolicy policy) {
        if (latencyMillis < 0 || policy.latencyInflation() == 0) {
            return false;
        }
        if (window.length != policy.latencyWindow()) {
            window = new long[policy.latencyWindow()];
            filled = 0;
        }
        window[filled++] = latencyMillis;
        if (filled < window.length) {
            return false;
        }
        filled = 0;
        return judge(median(window), policy);
    }

    private boolean judge(double median, GovernorPolicy policy) {
        windows++;
        if (windows <= WARM_UP_WINDOWS) {
            baseline += (median - baseline) / windows;
            spread += (Math.abs(median - baseline) - spread) / windows;
            return false;
        }
        boolean inflated = median > threshold(policy);
        if (!inflated) {
            inflatedInARow = 0;
            signalsInARow = 0;
            staleInARow = baseline > 2 * median ? staleInARow + 1 : 0;
            if (staleInARow >= SUSTAINED_WINDOWS) {
                staleInARow = 0;
                baseline = median;
            } else {
                double weight = 1.0 / policy.latencyBaselineWindows();
                spread += weight * (Math.abs(median - baseline) - spread);
                baseline += weight * (median - baseline);
            }
            return false;
        }
        staleInARow = 0;
        if (++inflatedInARow < SUSTAINED_WINDOWS) {
            return false;
        }
        inflatedInARow = 0;
        if (++signalsInARow >= UNHEEDED_SIGNALS) {
            signalsInARow = 0;
            baseline = median;
        }
        return true;
    }

    /** The median above which a window is inflated. */
    double threshold(GovernorPolicy policy) {
        return Math.max(policy.latencyInflation() * baseline,
                baseline + Math.max(policy.latencyFloorMillis(), SPREAD_MULTIPLE * spread));
    }

    /** After any slow-down signal, wait for fresh evidence: the next judgement needs two new windows. */
    void signalled() {
        inflatedInARow = 0;
    }

    void reset() {
        filled = 0;
        windows = 0;
        baseline = 0;
        spread = 0;
        inflatedInARow = 0;
        signalsInARow = 0;
        staleInARow = 0;
    }

    /** The baseline in milliseconds, or -1 while it is warming up. */
    double baseline() {
        return windows < WARM_UP_WINDOWS ? -1 : baseline;
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }
}
