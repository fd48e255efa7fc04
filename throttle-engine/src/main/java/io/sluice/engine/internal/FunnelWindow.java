package io.sluice.engine.internal;

import io.sluice.engine.telemetry.NetworkFunnel;

/**
 * One network's browser-check funnel ({@link FunnelStep}) over the last minute, in the same six buckets of ten
 * seconds as its costs ({@link CostWindow}: the minute is the last five whole buckets and the one in progress), so the
 * row's funnel and its cost cover one span. Guarded by its own monitor, held for one addition; times are passed in.
 * About 280 bytes, made for a network at its first step: most networks never meet the check.
 */
final class FunnelWindow {
    private static final FunnelStep[] STEPS = FunnelStep.values();
    private static final int WIDTH = STEPS.length;

    private final long[] counts = new long[CostWindow.BUCKETS * WIDTH];
    private long newestBucket = Long.MIN_VALUE;

    /** One step at {@code nowMillis}. */
    synchronized void add(long nowMillis, FunnelStep step) {
        counts[advance(Math.floorDiv(nowMillis, CostWindow.BUCKET_MILLIS)) * WIDTH + step.ordinal()]++;
    }

    /** The last minute ending at {@code nowMillis}. */
    synchronized NetworkFunnel sample(long nowMillis) {
        long end = Math.floorDiv(nowMillis, CostWindow.BUCKET_MILLIS);
        long[] sum = new long[WIDTH];
        for (long bucket = end - CostWindow.BUCKETS + 1; bucket <= end; bucket++) {
            if (bucket > newestBucket || bucket <= newestBucket - CostWindow.BUCKETS) {
                continue;
            }
            int from = index(bucket) * WIDTH;
            for (int s = 0; s < WIDTH; s++) {
                sum[s] += counts[from + s];
            }
        }
        return new NetworkFunnel(sum[FunnelStep.CHALLENGED.ordinal()], sum[FunnelStep.PASS_EARNED.ordinal()],
                sum[FunnelStep.WEAK_PASS_EARNED.ordinal()], sum[FunnelStep.ANSWER_REFUSED.ordinal()],
                sum[FunnelStep.SERVED_ON_PASS.ordinal()]);
    }

    /** Moves to {@code bucket} (a clock going back counts as now), clearing the buckets that went by; its slot. */
    private int advance(long bucket) {
        if (newestBucket == Long.MIN_VALUE) {
            newestBucket = bucket;
        } else if (bucket > newestBucket) {
            long gone = Math.min(bucket - newestBucket, CostWindow.BUCKETS);
            for (long i = 1; i <= gone; i++) {
                int from = index(newestBucket + i) * WIDTH;
                for (int s = 0; s < WIDTH; s++) {
                    counts[from + s] = 0;
                }
            }
            newestBucket = bucket;
        }
        return index(newestBucket);
    }

    private static int index(long bucket) {
        return (int) Math.floorMod(bucket, (long) CostWindow.BUCKETS);
    }
}
