package io.sluice.server.hostile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Median, 99th percentile and maximum of some durations in ms, for a line a person reads. */
final class Percentiles {
    private Percentiles() {
    }

    static String of(List<Long> millis) {
        if (millis.isEmpty()) {
            return "(none)";
        }
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return "p50 " + at(sorted, 0.50) + " p99 " + at(sorted, 0.99) + " max " + sorted.get(sorted.size() - 1)
                + " (n " + sorted.size() + ")";
    }

    /** The median (nearest rank). */
    static long median(List<Long> millis) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return at(sorted, 0.50);
    }

    private static long at(List<Long> sorted, double quantile) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(quantile * sorted.size()) - 1));
    }
}
