package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;

/**
 * The mutable state of one tracked client: a ring of per-second hit counts (the hit stack and the
 * heatmap row in one), refusals per second (allocated on the first refusal, since most clients are
 * never refused), and the time it was last served as a crawler. Guarded by its own monitor: one
 * client's requests rarely race, so the lock is nearly always uncontended.
 *
 * <p>Per-second buckets make the window slide a second at a time: a hit made at 0.9 s leaves a 15 s
 * window at 15.0 s. Counts saturate at 65,535 per second (a char each) to keep the client small.
 */
final class ClientState {
    /** Ring length: the longest window allowed (60 s, see PolicyValidator) plus slack. */
    static final int RING = 64;
    static final int ROW = 60;

    private final char[] hits = new char[RING];
    private char[] refusals;
    private long newestSecond = Long.MIN_VALUE;
    private long lastServedMillis = Long.MIN_VALUE;
    private long lastSeenMillis;
    private long lastLimitedMillis = Long.MIN_VALUE;
    private RequestClass requestClass;
    private String crawlerName;
    private boolean allowListed;

    synchronized HitStackState push(long nowMillis, RequestClass cls, String crawler, boolean allowed,
                                    int windowSeconds, int maxHits) {
        long now = Math.floorDiv(nowMillis, 1000);
        advance(now);
        int slot = index(newestSecond);
        if (hits[slot] < Character.MAX_VALUE) {
            hits[slot]++;
        }
        lastSeenMillis = nowMillis;
        requestClass = cls;
        crawlerName = crawler;
        allowListed = allowed;
        return state(nowMillis, windowSeconds, maxHits);
    }

    private HitStackState state(long nowMillis, int windowSeconds, int maxHits) {
        long first = newestSecond - windowSeconds + 1;
        int total = 0;
        long oldestNonEmpty = Long.MIN_VALUE;
        for (long s = first; s <= newestSecond; s++) {
            int n = hits[index(s)];
            if (n > 0 && oldestNonEmpty == Long.MIN_VALUE) {
                oldestNonEmpty = s;
            }
            total += n;
        }
        long untilBelow = 0;
        if (total >= maxHits) {
            int remaining = total;
            for (long s = first; s <= newestSecond; s++) {
                remaining -= hits[index(s)];
                if (remaining < maxHits) {
                    untilBelow = Math.max(0, (s + windowSeconds) * 1000 - nowMillis);
                    break;
                }
            }
        }
        long untilReset = oldestNonEmpty == Long.MIN_VALUE ? 0
                : Math.max(0, (oldestNonEmpty + windowSeconds) * 1000 - nowMillis);
        return new HitStackState(total, untilBelow, untilReset);
    }

    /** Moves the ring to {@code second}, clearing the seconds that went by. A clock going back counts as now. */
    private void advance(long second) {
        if (newestSecond == Long.MIN_VALUE) {
            newestSecond = second;
            return;
        }
        if (second <= newestSecond) {
            return;
        }
        long gap = Math.min(second - newestSecond, RING);
        for (long i = 1; i <= gap; i++) {
            int slot = index(newestSecond + i);
            hits[slot] = 0;
            if (refusals != null) {
                refusals[slot] = 0;
            }
        }
        newestSecond = second;
    }

    synchronized void limited(long nowMillis, boolean refused) {
        advance(Math.floorDiv(nowMillis, 1000));
        lastLimitedMillis = nowMillis;
        if (refused) {
            if (refusals == null) {
                refusals = new char[RING];
            }
            int slot = index(newestSecond);
            if (refusals[slot] < Character.MAX_VALUE) {
                refusals[slot]++;
            }
        }
    }

    /** Rule 3, this client's half: the time left before it may be served again, 0 when it may. */
    synchronized long waitBeforeServe(long nowMillis, long gapMillis) {
        if (lastServedMillis == Long.MIN_VALUE) {
            return 0;
        }
        return Math.max(0, lastServedMillis + gapMillis - nowMillis);
    }

    /** Marks the client served at {@code nowMillis}; returns the previous time, to undo. */
    synchronized long markServed(long nowMillis) {
        long previous = lastServedMillis;
        lastServedMillis = nowMillis;
        return previous;
    }

    synchronized void undoServe(long reservedAt, long previous) {
        if (lastServedMillis == reservedAt) {
            lastServedMillis = previous;
        }
    }

    synchronized int hitsInWindow(long nowMillis, int windowSeconds) {
        advance(Math.floorDiv(nowMillis, 1000));
        int total = 0;
        for (long s = newestSecond - windowSeconds + 1; s <= newestSecond; s++) {
            total += hits[index(s)];
        }
        return total;
    }

    synchronized ClientSample sample(ClientKey key, long nowMillis, int windowSeconds) {
        advance(Math.floorDiv(nowMillis, 1000));
        int[] hitRow = new int[ROW];
        int[] refusedRow = new int[ROW];
        for (int i = 0; i < ROW; i++) {
            int slot = index(newestSecond - ROW + 1 + i);
            hitRow[i] = hits[slot];
            refusedRow[i] = refusals == null ? 0 : refusals[slot];
        }
        int total = 0;
        for (long s = newestSecond - windowSeconds + 1; s <= newestSecond; s++) {
            total += hits[index(s)];
        }
        return new ClientSample(key, requestClass, crawlerName, allowListed, total, hitRow, refusedRow,
                lastSeenMillis, lastLimitedMillis);
    }

    private static int index(long second) {
        return (int) Math.floorMod(second, (long) RING);
    }
}
