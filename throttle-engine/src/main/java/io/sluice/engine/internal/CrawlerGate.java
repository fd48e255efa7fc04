package io.sluice.engine.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Rule 3, all crawlers: at most one crawler request served per gap, whichever crawler. One word taken by
 * compare-and-set, so two crawlers racing cannot both be served inside the gap; a request that a later rule
 * refuses gives its turn back ({@link #giveBack}), so only served crawler requests count. Global to the node,
 * beside {@link LoadGate}, not per client.
 */
public final class CrawlerGate {

    /** When the last crawler was served; {@link Long#MIN_VALUE} for never. */
    private final AtomicLong lastServed = new AtomicLong(Long.MIN_VALUE);

    /**
     * A turn: granted when {@code waitMillis} is 0, and then {@code takenAt} replaced {@code previous}.
     *
     * @param waitMillis time until any crawler may be served, when refused
     */
    public record Turn(long waitMillis, long takenAt, long previous) {
        public boolean granted() {
            return waitMillis == 0;
        }
    }

    /** Takes the turn at {@code nowMillis} unless a crawler was served within {@code gapMillis}. */
    public Turn take(long nowMillis, long gapMillis) {
        while (true) {
            long previous = lastServed.get();
            if (previous != Long.MIN_VALUE && nowMillis - previous < gapMillis) {
                return new Turn(previous + gapMillis - nowMillis, 0, 0);
            }
            if (lastServed.compareAndSet(previous, nowMillis)) {
                return new Turn(0, nowMillis, previous);
            }
        }
    }

    /** Gives a granted turn back, unless another crawler was served since. */
    public void giveBack(Turn turn) {
        if (turn != null && turn.granted()) {
            lastServed.compareAndSet(turn.takenAt(), turn.previous());
        }
    }
}
