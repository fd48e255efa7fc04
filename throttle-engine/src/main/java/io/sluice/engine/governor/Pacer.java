package io.sluice.engine.governor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * GCRA with no burst: one theoretical arrival time per domain, so a grant is one compare-and-set
 * and two workers can never take the same slot.
 */
final class Pacer {
    private final AtomicLong theoreticalArrival = new AtomicLong(Long.MIN_VALUE);

    /** Takes the slot if it is open at {@code now}: 0; otherwise the micros until it opens. */
    long tryAcquire(long now, long intervalMicros) {
        while (true) {
            long tat = theoreticalArrival.get();
            if (tat > now) {
                return tat - now;
            }
            if (theoreticalArrival.compareAndSet(tat, now + intervalMicros)) {
                return 0;
            }
        }
    }

    /**
     * {@link #tryAcquire} for a worker whose turn other workers waited through (DomainWorkers): the next slot is
     * spaced from this one, not from {@code now}, so the wait for the turn costs the rate nothing; never closer to
     * {@code now} than {@code floorMicros} (the minimum delays, which hold between any two grants).
     */
    long tryAcquireTurn(long now, long intervalMicros, long floorMicros) {
        while (true) {
            long tat = theoreticalArrival.get();
            if (tat > now) {
                return tat - now;
            }
            long next = tat == Long.MIN_VALUE || now - tat >= intervalMicros ? now + intervalMicros
                    : Math.max(tat + intervalMicros, now + floorMicros);
            if (theoreticalArrival.compareAndSet(tat, next)) {
                return 0;
            }
        }
    }

    /**
     * Re-spaces the next slot after the interval changed, so a cut takes effect on the very next
     * grant instead of after the slot computed at the old rate; never before {@code notBefore} (the last grant and
     * the minimum delays: a turn's slot is spaced from the slot before it, not from the grant).
     */
    void respace(long oldIntervalMicros, long newIntervalMicros, long notBefore) {
        while (true) {
            long tat = theoreticalArrival.get();
            if (tat == Long.MIN_VALUE) {
                return;
            }
            long lastGrant = tat - oldIntervalMicros;
            long respaced = Math.max(lastGrant + newIntervalMicros, notBefore);
            if (theoreticalArrival.compareAndSet(tat, respaced)) {
                return;
            }
        }
    }

    /** The next open slot, or {@code Long.MIN_VALUE} before the first grant. */
    long nextSlot() {
        return theoreticalArrival.get();
    }

    /** Takes the cluster's next slot as this node's (so a node that loses the cluster does not grant it again). */
    void mirror(long nextSlot) {
        theoreticalArrival.set(nextSlot);
    }

    void reset() {
        theoreticalArrival.set(Long.MIN_VALUE);
    }
}
