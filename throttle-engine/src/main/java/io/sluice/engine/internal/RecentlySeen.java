package io.sluice.engine.internal;

import io.sluice.engine.store.ClientKey;

/**
 * Which clients were seen lately, approximately and in a fixed amount of memory: one int (a hash of the
 * client) per slot, overwritten by whichever client lands in the slot next. A client's mark lasts until
 * about {@code slots} other new clients have come by.
 *
 * <p>It answers one question for {@link LocalClientStateStore}: is this unknown client a newcomer, or did it
 * come before and its state was dropped? A wrong "seen" (two clients with the same hash) only sends a
 * newcomer to the main table, where every client went before newcomers had their own; a lost mark only
 * gives a returning client one more stay among the newcomers.
 *
 * <p>Reads and writes race without locks on purpose: an int is written whole, and a race costs at most
 * one of the wrong answers above.
 */
final class RecentlySeen {
    private final int[] marks;
    private final int shift;

    /** @param atLeast the fewest slots; rounded up to a power of two */
    RecentlySeen(int atLeast) {
        int slots = Integer.highestOneBit(Math.max(2, atLeast - 1)) << 1;
        this.marks = new int[slots];
        this.shift = 32 - Integer.numberOfTrailingZeros(slots);
    }

    /** Marks {@code key} seen; true when it was marked already. */
    boolean markSeen(ClientKey key) {
        int hash = key.hashCode();
        int mark = hash | 1; // 0 is an empty slot
        int slot = (hash * 0x9E3779B9) >>> shift;
        if (marks[slot] == mark) {
            return true;
        }
        marks[slot] = mark;
        return false;
    }
}
