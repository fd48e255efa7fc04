package io.sluice.engine.internal;

import io.sluice.engine.RequestCost;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.NetworkFunnel;

/**
 * What the requests of one key (a client, an address, a network, a class, a route) cost the upstream over the last
 * minute, in six buckets of ten seconds: the minute is the last five whole buckets and the one in progress (50 to
 * 60 s), its newer half the last three. Guarded by its own monitor, held for a few additions (the same shape as a
 * client's hit stack); times are passed in. About 300 bytes, made for a key when its first admitted request
 * completes with a cost. A network's window also holds its browser-check funnel ({@link FunnelWindow}), made at the
 * network's first step, so the funnel is bounded, evicted and shown with the network's costs.
 */
public final class CostWindow {
    static final int BUCKETS = 6;
    static final long BUCKET_MILLIS = 10_000;
    private static final int METRICS = 6;
    private static final int REQUESTS = 0;
    private static final int WEIGHT = 1;
    private static final int UPSTREAM = 2;
    private static final int FIRST_BYTE = 3;
    private static final int BYTES_IN = 4;
    private static final int BYTES_OUT = 5;

    private final long[] values = new long[BUCKETS * METRICS];
    /** Counts since start as well (a class's, for /metrics), or null. */
    private final long[] sinceStart;
    private long newestBucket = Long.MIN_VALUE;
    /** A network's window the table evicted: whoever links to it must look the network up again. */
    private volatile boolean evicted;
    /** The second a linked network's access was last reported to its table (see {@link #accessReportDue}). */
    private int reportedSecond = Integer.MIN_VALUE;
    /** A network's browser-check funnel over the same minute; null until its first step (never for other keys). */
    private volatile FunnelWindow funnel;

    /** A window of the last minute only. */
    public CostWindow() {
        this(false);
    }

    /** @param keepTotals whether to count since start as well ({@link #totals}) */
    public CostWindow(boolean keepTotals) {
        this.sinceStart = keepTotals ? new long[METRICS] : null;
    }

    /** Whether its table (the networks') evicted it. */
    boolean isEvicted() {
        return evicted;
    }

    void evict() {
        evicted = true;
    }

    /**
     * Whether to tell the table of networks about an access now, once per {@link ClientState#REPORT_SECONDS}: a
     * window reached through a client's link is not looked up, and would otherwise look idle to the table's
     * eviction policy. Read and written without a lock: a race reports once more or once less.
     */
    boolean accessReportDue(long nowMillis) {
        int second = (int) Math.floorDiv(nowMillis, 1000);
        int elapsed = second - reportedSecond;
        if (elapsed >= ClientState.REPORT_SECONDS || elapsed < 0) {
            reportedSecond = second;
            return true;
        }
        return false;
    }

    /** A network's funnel, made at its first step. */
    FunnelWindow funnel() {
        FunnelWindow window = funnel;
        if (window == null) {
            synchronized (this) {
                window = funnel;
                if (window == null) {
                    window = new FunnelWindow();
                    funnel = window;
                }
            }
        }
        return window;
    }

    /** The funnel's last minute ending at {@code nowMillis}; null when the check never met this network. */
    NetworkFunnel funnelSample(long nowMillis) {
        FunnelWindow window = funnel;
        return window == null ? null : window.sample(nowMillis);
    }

    /** One request's cost, at {@code nowMillis}. */
    public synchronized void add(long nowMillis, int weight, RequestCost cost) {
        int at = advance(Math.floorDiv(nowMillis, BUCKET_MILLIS)) * METRICS;
        long upstream = Math.max(0, cost.upstreamNanos() / 1000);
        long firstByte = cost.firstByteNanos() < 0 ? 0 : cost.firstByteNanos() / 1000;
        long in = Math.max(0, cost.bytesIn());
        long out = Math.max(0, cost.bytesOut());
        addAt(values, at, weight, upstream, firstByte, in, out);
        if (sinceStart != null) {
            addAt(sinceStart, 0, weight, upstream, firstByte, in, out);
        }
    }

    private static void addAt(long[] into, int at, int weight, long upstream, long firstByte, long in, long out) {
        into[at + REQUESTS]++;
        into[at + WEIGHT] += weight;
        into[at + UPSTREAM] += upstream;
        into[at + FIRST_BYTE] += firstByte;
        into[at + BYTES_IN] += in;
        into[at + BYTES_OUT] += out;
    }

    /** Adds {@code other}'s buckets to this one's (an address taking its first client's costs as its own). */
    public void addAll(CostWindow other, long nowMillis) {
        long[] copy;
        long otherNewest;
        synchronized (other) {
            copy = other.values.clone();
            otherNewest = other.newestBucket;
        }
        synchronized (this) {
            advance(Math.floorDiv(nowMillis, BUCKET_MILLIS));
            for (long bucket = newestBucket - BUCKETS + 1; bucket <= newestBucket; bucket++) {
                if (bucket <= otherNewest && bucket > otherNewest - BUCKETS) {
                    int from = index(bucket) * METRICS;
                    for (int m = 0; m < METRICS; m++) {
                        values[from + m] += copy[from + m];
                    }
                }
            }
        }
    }

    /** The last minute ending at {@code nowMillis}. */
    public synchronized CostSample sample(long nowMillis) {
        long end = Math.floorDiv(nowMillis, BUCKET_MILLIS);
        long[] sum = new long[METRICS];
        long recent = 0;
        for (long bucket = end - BUCKETS + 1; bucket <= end; bucket++) {
            if (bucket > newestBucket || bucket <= newestBucket - BUCKETS) {
                continue;
            }
            int from = index(bucket) * METRICS;
            for (int m = 0; m < METRICS; m++) {
                sum[m] += values[from + m];
            }
            if (bucket > end - BUCKETS / 2) {
                recent += values[from + UPSTREAM];
            }
        }
        return new CostSample(cost(sum), recent, sum[UPSTREAM] - recent);
    }

    /** Since start (a window made with totals), else {@link Cost#NONE}. */
    public synchronized Cost totals() {
        return sinceStart == null ? Cost.NONE : cost(sinceStart);
    }

    private static Cost cost(long[] of) {
        return new Cost(of[REQUESTS], of[WEIGHT], of[UPSTREAM], of[FIRST_BYTE], of[BYTES_IN], of[BYTES_OUT]);
    }

    /** Moves to {@code bucket} (a clock going back counts as now); returns its slot. */
    private int advance(long bucket) {
        if (newestBucket == Long.MIN_VALUE) {
            newestBucket = bucket;
        } else if (bucket > newestBucket) {
            long gone = Math.min(bucket - newestBucket, BUCKETS);
            for (long i = 1; i <= gone; i++) {
                int from = index(newestBucket + i) * METRICS;
                for (int m = 0; m < METRICS; m++) {
                    values[from + m] = 0;
                }
            }
            newestBucket = bucket;
        }
        return index(newestBucket);
    }

    private static int index(long bucket) {
        return (int) Math.floorMod(bucket, (long) BUCKETS);
    }

    /**
     * A copy of the last minute.
     *
     * @param cost           the minute's costs
     * @param recentUpstreamMicros  the upstream's time in its newer half (the last three buckets)
     * @param earlierUpstreamMicros in its older half
     */
    public record CostSample(Cost cost, long recentUpstreamMicros, long earlierUpstreamMicros) {
        public static final CostSample NONE = new CostSample(Cost.NONE, 0, 0);
    }
}
