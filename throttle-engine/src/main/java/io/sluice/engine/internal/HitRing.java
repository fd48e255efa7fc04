package io.sluice.engine.internal;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;

/**
 * A key's hit stack as counts per second: its weighted hits in each of the last {@link #SECONDS} seconds, and the
 * arithmetic of rule 4 over them (hits in a window, the time until fewer than a limit remain, the time until the
 * oldest leaves). Time is an argument, never read here. Redis keeps the same stacks for a cluster
 * (hit-stacks.lua); the two are held to one table of golden cases (HitRingTest, the server's HitStackGoldenCasesTest).
 *
 * <p>Seconds are whole: a hit made at 0.9 s leaves a 15 s window at 15.0 s. A window ends at the newest second a hit
 * or a look was made in; a clock going back counts as that second (its hits go there, and the times are measured
 * from the earlier now). Counts saturate at 65,535 per second (a char each).
 *
 * <p>Memory. Most clients of a spray are seen in one second only, so a stack starts in "single second" form (one
 * count in a field, no array) and gets its ring (136 bytes) only when a hit comes in a later second while earlier
 * hits still count. The seconds before the newest are summed once per second (or window length), not per request:
 * a client's further requests in the same second read no ring.
 *
 * <p>It extends the key for the client table's sake: a tracked client's key, ring and the rest of its state
 * ({@link ClientState}) are one object, and a new client allocates nothing more. Not thread-safe: the subclass's
 * monitor guards it.
 */
class HitRing extends ClientKey {
    /** Seconds kept: the heatmap's row, and the longest window a policy may set. */
    static final int SECONDS = Policy.HitStack.MAX_WINDOW_SECONDS;

    /** No second seen yet. */
    private static final long NONE = Long.MIN_VALUE;

    /** Hits in the seconds before {@link #newestSecond}; null while none of them still counts. */
    private char[] hits;
    /** Hits in {@link #newestSecond} (kept out of the ring so that requests within a second never read it). */
    private char newestCount;
    private long newestSecond = NONE;
    /** The window length {@link #olderInWindow} was summed for; 0 when it must be summed again. */
    private byte olderWindow;
    /** Age in seconds of the oldest second before the newest with hits in that window (when it has any). */
    private byte oldestOlderAge;
    /** Hits in that window's seconds before the newest. */
    private int olderInWindow;

    HitRing(ClientKey key) {
        super(key);
    }

    /** Adds a hit of {@code weight} (0: seen, not counted) at {@code nowMillis}, after moving to its second. */
    final void push(long nowMillis, int weight) {
        advance(secondOf(nowMillis));
        add(weight);
    }

    /** Adds {@code weight} to the newest second's hits (the caller moved to its second: {@link #advance}). */
    final void add(int weight) {
        newestCount = (char) Math.min(Character.MAX_VALUE, newestCount + weight);
    }

    /**
     * Moves to {@code second}: the newest second's count goes into the ring (allocated the first time a hit comes in a
     * later second while earlier ones still count), and the seconds that went by are cleared. A clock going back
     * counts as the newest second.
     *
     * @return how many seconds went by, at most {@link #SECONDS} (0: none): the slots of the seconds
     *         {@code newestSecond() - gone + 1} to {@code newestSecond()}, which the caller clears in rows of its own
     */
    final int advance(long second) {
        if (newestSecond == NONE) {
            newestSecond = second;
            return 0;
        }
        if (second <= newestSecond) {
            return 0;
        }
        int gone = (int) Math.min(second - newestSecond, SECONDS);
        if (newestCount > 0 && gone < SECONDS) {
            if (hits == null) {
                hits = new char[SECONDS];
            }
            hits[slot(newestSecond)] = newestCount;
        }
        if (hits != null) {
            for (int i = 1; i <= gone; i++) {
                hits[slot(newestSecond + i)] = 0;
            }
        }
        newestSecond = second;
        newestCount = 0;
        olderWindow = 0;
        return gone;
    }

    /** The newest second a hit or a look was made in; {@link Long#MIN_VALUE} before any. */
    final long newestSecond() {
        return newestSecond;
    }

    /** Hits in the window of {@code windowSeconds} (1 to {@link #SECONDS}) ending at the newest second. */
    final int windowHits(int windowSeconds) {
        if (olderWindow != windowSeconds) {
            sumOlder(windowSeconds);
        }
        return olderInWindow + newestCount;
    }

    /**
     * Time from {@code nowMillis} until fewer than {@code maxHits} hits remain in that window (so one more is
     * allowed), as its seconds leave it with no further hit; 0 when fewer remain already.
     */
    final long millisUntilBelow(long nowMillis, int windowSeconds, int maxHits) {
        int remaining = windowHits(windowSeconds);
        if (remaining < maxHits) {
            return 0;
        }
        for (long s = newestSecond - windowSeconds + 1; s <= newestSecond; s++) {
            remaining -= count(s);
            if (remaining < maxHits) {
                return Math.max(0, (s + windowSeconds) * 1000 - nowMillis);
            }
        }
        return 0;
    }

    /** Time from {@code nowMillis} until the window's oldest hit leaves it; 0 when it holds none. */
    final long millisUntilReset(long nowMillis, int windowSeconds) {
        windowHits(windowSeconds); // sums the seconds before the newest for this window, if not yet
        long oldest = olderInWindow > 0 ? newestSecond - oldestOlderAge : newestCount > 0 ? newestSecond : NONE;
        return oldest == NONE ? 0 : Math.max(0, (oldest + windowSeconds) * 1000 - nowMillis);
    }

    /** Hits in {@code second}; 0 for a second the ring no longer (or not yet) holds. */
    final int hitsAt(long second) {
        return held(second) ? count(second) : 0;
    }

    /**
     * Hits in the window of {@code windowSeconds} ending at {@code second} (at most the newest), for a snapshot: it
     * counts by the hits' own seconds, so states moved on by later requests are all read as of one second.
     */
    final int hitsInWindowEndingAt(long second, int windowSeconds) {
        int total = 0;
        for (long s = second - windowSeconds + 1; s <= second; s++) {
            total += hitsAt(s);
        }
        return total;
    }

    /** Whether {@code second} is one of the {@link #SECONDS} seconds up to the newest. */
    final boolean held(long second) {
        return second <= newestSecond && second > newestSecond - SECONDS;
    }

    /** Takes {@code other}'s hits as this stack's own (an address aggregate taking its first client's). */
    final void copyHits(HitRing other) {
        hits = other.hits == null ? null : other.hits.clone();
        newestCount = other.newestCount;
        newestSecond = other.newestSecond;
        olderWindow = 0;
    }

    /** Forgets every hit, as for a key never seen. */
    final void clearHits() {
        hits = null;
        newestCount = 0;
        newestSecond = NONE;
        olderWindow = 0;
    }

    /** The second of an instant, in milliseconds since the epoch. */
    static long secondOf(long millis) {
        return Math.floorDiv(millis, 1000);
    }

    /** The ring's slot for {@code second} (also the slot of the subclass's own per-second rows). */
    static int slot(long second) {
        return (int) Math.floorMod(second, (long) SECONDS);
    }

    /** Hits in {@code second}, one of the last {@link #SECONDS} seconds up to the newest. */
    private int count(long second) {
        if (second == newestSecond) {
            return newestCount;
        }
        return hits == null ? 0 : hits[slot(second)];
    }

    /** Sums the window's seconds before the newest and finds the oldest with hits. */
    private void sumOlder(int windowSeconds) {
        int total = 0;
        int oldestAge = 0;
        if (hits != null) {
            for (int age = windowSeconds - 1; age >= 1; age--) {
                int n = hits[slot(newestSecond - age)];
                if (n > 0 && total == 0) {
                    oldestAge = age;
                }
                total += n;
            }
        }
        olderInWindow = total;
        oldestOlderAge = (byte) oldestAge;
        olderWindow = (byte) windowSeconds;
    }
}
