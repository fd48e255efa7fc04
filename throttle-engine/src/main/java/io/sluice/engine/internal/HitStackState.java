package io.sluice.engine.internal;

/**
 * A key's hit stack just after a hit was pushed.
 *
 * @param hitsInWindow     hits in the window, this one included
 * @param millisUntilBelow time until fewer than {@code maxHits} hits remain in the window (so one more
 *                         hit is allowed); 0 when already so
 * @param millisUntilReset time until the oldest hit in the window leaves it
 * @param client           the store's handle on the key, handed back to {@link ClientStateStore#acquireInFlight}
 *                         on the same decision so it needs no second lookup
 * @param <C>              the store's handle type
 */
public record HitStackState<C>(int hitsInWindow, long millisUntilBelow, long millisUntilReset, C client) {
}
