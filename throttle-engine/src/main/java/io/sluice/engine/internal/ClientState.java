package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;

/**
 * The mutable state of one tracked client: per-second hit counts (the hit stack and the heatmap row
 * in one), refusals per second, and the time it was last served as a crawler. Guarded by its own
 * monitor: one client's requests rarely race, so the lock is nearly always uncontended.
 *
 * <p>Per-second buckets make the window slide a second at a time: a hit made at 0.9 s leaves a 15 s
 * window at 15.0 s. Counts saturate at 65,535 per second (a char each).
 *
 * <p>Memory. Most clients of a spray are seen in one second only, so a client starts in "single
 * second" form (one count in a field, no array) and gets its 60-bucket ring (136 bytes) only when it
 * comes back in another second while earlier hits still count. The refusal ring is allocated on the
 * first refusal. A one-second client costs about 72 bytes here.
 */
final class ClientState {
    /** Ring length: the heatmap row and the longest window allowed (see PolicyValidator). */
    static final int RING = 60;

    /** Null while every hit still counted is in {@link #newestSecond} (then {@link #singleCount} holds them). */
    private char[] hits;
    private char[] refusals;
    private char singleCount;
    private long newestSecond = Long.MIN_VALUE;
    private long lastServedMillis = Long.MIN_VALUE;
    private long lastSeenMillis;
    private long lastLimitedMillis = Long.MIN_VALUE;
    private RequestClass requestClass;
    private String crawlerName;
    private boolean allowListed;

    synchronized HitStackState push(long nowMillis, RequestClass cls, String crawler, boolean allowed,
                                    int windowSeconds, int maxHits) {
        advance(Math.floorDiv(nowMillis, 1000));
        if (hits == null) {
            if (singleCount < Character.MAX_VALUE) {
                singleCount++;
            }
        } else {
            int slot = index(newestSecond);
            if (hits[slot] < Character.MAX_VALUE) {
                hits[slot]++;
            }
        }
        lastSeenMillis = nowMillis;
        requestClass = cls;
        crawlerName = crawler;
        allowListed = allowed;
        return state(nowMillis, windowSeconds, maxHits);
    }

    private int count(long second) {
        if (hits == null) {
            return second == newestSecond ? singleCount : 0;
        }
        return hits[index(second)];
    }

    private HitStackState state(long nowMillis, int windowSeconds, int maxHits) {
        long first = newestSecond - windowSeconds + 1;
        int total = 0;
        long oldestNonEmpty = Long.MIN_VALUE;
        for (long s = first; s <= newestSecond; s++) {
            int n = count(s);
            if (n > 0 && oldestNonEmpty == Long.MIN_VALUE) {
                oldestNonEmpty = s;
            }
            total += n;
        }
        long untilBelow = 0;
        if (total >= maxHits) {
            int remaining = total;
            for (long s = first; s <= newestSecond; s++) {
                remaining -= count(s);
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

    /** Moves to {@code second}, clearing the seconds that went by. A clock going back counts as now. */
    private void advance(long second) {
        if (newestSecond == Long.MIN_VALUE) {
            newestSecond = second;
            return;
        }
        if (second <= newestSecond) {
            return;
        }
        if (hits == null && refusals == null) {
            if (singleCount == 0 || second - newestSecond >= RING) {
                singleCount = 0; // what was counted has left every view: stay small
                newestSecond = second;
                return;
            }
            growRing();
        } else if (hits == null) {
            growRing();
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

    private void growRing() {
        hits = new char[RING];
        hits[index(newestSecond)] = singleCount;
        singleCount = 0;
    }

    synchronized void limited(long nowMillis, boolean refused) {
        advance(Math.floorDiv(nowMillis, 1000));
        lastLimitedMillis = nowMillis;
        if (refused) {
            if (hits == null) {
                growRing();
            }
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
            total += count(s);
        }
        return total;
    }

    synchronized ClientSample sample(ClientKey key, long nowMillis, int windowSeconds) {
        advance(Math.floorDiv(nowMillis, 1000));
        int[] hitRow = new int[RING];
        int[] refusedRow = new int[RING];
        for (int i = 0; i < RING; i++) {
            long second = newestSecond - RING + 1 + i;
            hitRow[i] = count(second);
            refusedRow[i] = refusals == null ? 0 : refusals[index(second)];
        }
        int total = 0;
        for (long s = newestSecond - windowSeconds + 1; s <= newestSecond; s++) {
            total += count(s);
        }
        return new ClientSample(key, requestClass, crawlerName, allowListed, total, hitRow, refusedRow,
                lastSeenMillis, lastLimitedMillis);
    }

    private static int index(long second) {
        return (int) Math.floorMod(second, (long) RING);
    }
}
