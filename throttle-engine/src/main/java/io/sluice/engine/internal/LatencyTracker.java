package io.sluice.engine.internal;

import io.sluice.engine.telemetry.LatencySummary;
import java.util.ArrayDeque;
import java.util.Deque;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Upstream latency: writers record into an HdrHistogram {@link Recorder} (wait-free); the reader
 * takes interval histograms, keeps those of the last {@code windowSeconds}, and merges them into
 * percentiles. Only the reader side is synchronized, so a snapshot never stalls a request.
 */
public final class LatencyTracker {

    private static final long MAX_MICROS = 3_600_000_000L;

    private final Recorder recorder = new Recorder(MAX_MICROS, 2);
    private final long windowMillis;
    private final Deque<Interval> intervals = new ArrayDeque<>();
    private Histogram recycle;

    public LatencyTracker(int windowSeconds) {
        this.windowMillis = windowSeconds * 1000L;
    }

    public void record(long latencyNanos) {
        if (latencyNanos >= 0) {
            recorder.recordValue(Math.min(MAX_MICROS, Math.max(0, latencyNanos / 1000)));
        }
    }

    public synchronized LatencySummary summary(long nowMillis) {
        Histogram interval = recorder.getIntervalHistogram(recycle);
        recycle = null;
        if (interval.getTotalCount() > 0) {
            intervals.addLast(new Interval(nowMillis, interval));
        } else {
            recycle = interval;
        }
        while (!intervals.isEmpty() && intervals.peekFirst().endMillis <= nowMillis - windowMillis) {
            intervals.removeFirst();
        }
        if (intervals.isEmpty()) {
            return new LatencySummary(0, 0, 0, 0, 0);
        }
        Histogram merged = new Histogram(MAX_MICROS, 2);
        for (Interval each : intervals) {
            merged.add(each.histogram);
        }
        return new LatencySummary(merged.getTotalCount(), merged.getValueAtPercentile(50),
                merged.getValueAtPercentile(90), merged.getValueAtPercentile(99), merged.getMaxValue());
    }

    private record Interval(long endMillis, Histogram histogram) {
    }
}
