package io.sluice.engine.check;

import java.util.Objects;

/**
 * The keys a front end signs and checks with: the current one, which signs everything new, and the one it
 * replaced, still accepted for one pass lifetime after a rotation so that passes made just before it stay good
 * until they expire on their own. Immutable; a rotation makes a new ring.
 *
 * @param current                     signs new passes and challenges, and checks them
 * @param previous                    the key before the last rotation, or null
 * @param previousAcceptedUntilMillis until when (exclusive, epoch milliseconds) {@code previous} is accepted
 */
public record PassKeyRing(PassKey current, PassKey previous, long previousAcceptedUntilMillis) {

    public PassKeyRing {
        Objects.requireNonNull(current, "current");
    }

    /** A ring of one key (a first start). */
    public static PassKeyRing of(PassKey current) {
        return new PassKeyRing(current, null, 0);
    }

    /**
     * The ring after a rotation: {@code next} signs from now on; the current key becomes the previous one,
     * accepted until {@code nowMillis + passTtlMillis}, when the last pass it signed expires. The key it
     * replaces (this ring's previous one) is retired at once.
     *
     * @throws IllegalArgumentException when {@code next} has the current key's id (a new random key does not:
     *                                  the odds are one in four billion; draw another), or the lifetime is negative
     */
    public PassKeyRing rotated(PassKey next, long nowMillis, long passTtlMillis) {
        Objects.requireNonNull(next, "next");
        if (passTtlMillis < 0) {
            throw new IllegalArgumentException("a pass lifetime is not negative: " + passTtlMillis);
        }
        if (next.id() == current.id()) {
            throw new IllegalArgumentException("the next key has the current key's id");
        }
        long until = nowMillis + passTtlMillis;
        if (((nowMillis ^ until) & (passTtlMillis ^ until)) < 0) {
            until = Long.MAX_VALUE; // overflow: accepted for ever, as far as a long goes
        }
        return new PassKeyRing(next, current, until);
    }

    /** The key with this id: the current one, or the previous one while it is accepted; null otherwise. */
    public PassKey forId(int id, long nowMillis) {
        if (current.id() == id) {
            return current;
        }
        if (previousAccepted(nowMillis) && previous.id() == id) {
            return previous;
        }
        return null;
    }

    /** True when there is a previous key and {@code nowMillis} is before its end. */
    public boolean previousAccepted(long nowMillis) {
        return previous != null && nowMillis < previousAcceptedUntilMillis;
    }
}
