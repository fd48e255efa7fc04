package io.sluice.engine.whatif;

import java.util.HashSet;
import java.util.Set;

/**
 * The live shadow's recent window: one {@link Tally} per minute, the last {@link #MINUTES} kept, so old
 * traffic leaves the report and memory stays bounded however long the shadow runs.
 */
final class RollingTallies implements WhatIfRun.TallySink {
    static final int MINUTES = 5;
    private static final long MINUTE_MILLIS = 60_000;

    private final int maxClientsPerMinute;
    private final Tally[] ring = new Tally[MINUTES];
    private final long[] minuteOf = new long[MINUTES];

    RollingTallies(int maxClientsPerMinute) {
        this.maxClientsPerMinute = maxClientsPerMinute;
    }

    @Override
    public Tally at(long millis) {
        long minute = Math.floorDiv(millis, MINUTE_MILLIS);
        int slot = Math.floorMod(minute, MINUTES);
        if (ring[slot] == null || minuteOf[slot] != minute) {
            ring[slot] = new Tally(maxClientsPerMinute);
            minuteOf[slot] = minute;
        }
        return ring[slot];
    }

    /** Where the window that ends at {@code nowMillis} starts: the start of the oldest minute kept. */
    static long windowStart(long nowMillis) {
        return (Math.floorDiv(nowMillis, MINUTE_MILLIS) - MINUTES + 1) * MINUTE_MILLIS;
    }

    /** The counts of the window that ends at {@code nowMillis}, merged into one tally. */
    Tally window(long nowMillis) {
        Tally merged = new Tally(Integer.MAX_VALUE);
        long oldest = Math.floorDiv(nowMillis, MINUTE_MILLIS) - MINUTES + 1;
        for (int i = 0; i < MINUTES; i++) {
            if (ring[i] != null && minuteOf[i] >= oldest) {
                merged.addAll(ring[i]);
            }
        }
        return merged;
    }

    /**
     * The window's totals without merging client tables: what the snapshot shows every second.
     *
     * @return requests, live refused, candidate refused, clients differing, browsers differing
     */
    long[] totals(long nowMillis) {
        long oldest = Math.floorDiv(nowMillis, MINUTE_MILLIS) - MINUTES + 1;
        long[] totals = new long[5];
        Set<String> differing = new HashSet<>();
        Set<String> browsers = new HashSet<>();
        for (int i = 0; i < MINUTES; i++) {
            if (ring[i] != null && minuteOf[i] >= oldest) {
                totals[0] += ring[i].requests();
                totals[1] += ring[i].refused(true);
                totals[2] += ring[i].refused(false);
                ring[i].collectDiffering(differing, browsers);
            }
        }
        totals[3] = differing.size();
        totals[4] = browsers.size();
        return totals;
    }
}
