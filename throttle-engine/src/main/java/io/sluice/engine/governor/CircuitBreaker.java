package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.Arrays;

/**
 * A time-based breaker over 60 one-second buckets. Not thread-safe: its domain's lock guards it.
 */
final class CircuitBreaker {
    static final int BUCKETS = 60;
    private static final long SECOND = 1_000_000;

    private final long[] bucketSecond = new long[BUCKETS];
    private final int[] calls = new int[BUCKETS];
    private final int[] errors = new int[BUCKETS];
    private BreakerState state = BreakerState.CLOSED;
    private long openUntil;
    private int trialsGranted;
    private int trialSuccesses;
    private long lastTrialGrant;

    BreakerState state() {
        return state;
    }

    long openUntil() {
        return openUntil;
    }

    /**
     * Whether a request may go now: 0 when it may (a half-open breaker counts it as a trial),
     * otherwise the micros to wait.
     */
    long admit(long now, GovernorPolicy policy) {
        if (state == BreakerState.OPEN) {
            if (now < openUntil) {
                return openUntil - now;
            }
            state = BreakerState.HALF_OPEN;
            trialsGranted = 0;
            trialSuccesses = 0;
        }
        if (state == BreakerState.HALF_OPEN) {
            long trialTimeout = policy.breakerOpenSeconds() * SECOND;
            if (trialsGranted >= policy.breakerTrialRequests()) {
                // A trial whose worker never reported must not wedge the domain half-open forever.
                if (now - lastTrialGrant < trialTimeout) {
                    return lastTrialGrant + trialTimeout - now;
                }
                trialsGranted = trialSuccesses;
            }
            trialsGranted++;
            lastTrialGrant = now;
        }
        return 0;
    }

    /** Gives back a trial taken by {@link #admit} when the pacer then said no. */
    void returnTrial() {
        if (state == BreakerState.HALF_OPEN && trialsGranted > 0) {
            trialsGranted--;
        }
    }

    /** Counts a response; returns true when this response opened the breaker. */
    boolean record(long now, boolean error, GovernorPolicy policy) {
        long second = Math.floorDiv(now, SECOND);
        int slot = Math.floorMod(second, BUCKETS);
        if (bucketSecond[slot] != second) {
            bucketSecond[slot] = second;
            calls[slot] = 0;
            errors[slot] = 0;
        }
        calls[slot]++;
        if (error) {
            errors[slot]++;
        }
        switch (state) {
            case HALF_OPEN -> {
                if (error) {
                    open(now, policy);
                    return true;
                }
                if (++trialSuccesses >= policy.breakerTrialRequests()) {
                    close();
                }
                return false;
            }
            case CLOSED -> {
                if (error && tooManyErrors(now, policy)) {
                    open(now, policy);
                    return true;
                }
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    /**
     * "Enough calls to judge" is two tests: at least {@code breakerMinCalls}, and the error share
     * above the threshold with 95% confidence (the lower Wilson bound), so a site erring at 8% is
     * not cut off by an unlucky minute while one at 15% is, as soon as the evidence says so.
     */
    private boolean tooManyErrors(long now, GovernorPolicy policy) {
        int calls60 = calls(now);
        if (calls60 < policy.breakerMinCalls()) {
            return false;
        }
        return wilsonLowerBound(errors(now), calls60) > policy.breakerErrorPercent() / 100.0;
    }

    static double wilsonLowerBound(int errors, int calls) {
        double z = 1.96;
        double p = errors / (double) calls;
        double z2n = z * z / calls;
        double centre = p + z2n / 2;
        double spread = z * Math.sqrt(p * (1 - p) / calls + z2n / (4.0 * calls));
        return (centre - spread) / (1 + z2n);
    }

    private void open(long now, GovernorPolicy policy) {
        state = BreakerState.OPEN;
        openUntil = now + policy.breakerOpenSeconds() * SECOND;
    }

    /** Takes the cluster's breaker state as this node's, for pacing alone if the cluster becomes unreachable. */
    void mirror(BreakerState shared, long sharedOpenUntil) {
        if (shared == state && shared != BreakerState.OPEN) {
            return; // keep the trial counts of a half-open breaker
        }
        state = shared;
        openUntil = sharedOpenUntil;
        trialsGranted = 0;
        trialSuccesses = 0;
    }

    void close() {
        state = BreakerState.CLOSED;
        Arrays.fill(calls, 0);
        Arrays.fill(errors, 0);
        Arrays.fill(bucketSecond, 0);
    }

    /** Responses counted in the 60 s up to {@code now}. */
    int calls(long now) {
        return sum(calls, now);
    }

    int errors(long now) {
        return sum(errors, now);
    }

    private int sum(int[] counts, long now) {
        long second = Math.floorDiv(now, SECOND);
        int total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (second - bucketSecond[i] < BUCKETS && bucketSecond[i] <= second) {
                total += counts[i];
            }
        }
        return total;
    }
}
