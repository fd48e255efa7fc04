package io.sluice.engine.internal;

/**
 * A client's hit stack just after a hit was pushed.
 *
 * @param hitsInWindow     hits in the window, this one included
 * @param millisUntilBelow time until fewer than {@code maxHits} hits remain in the window (so one more
 *                         hit is allowed); 0 when already so
 * @param millisUntilReset time until the oldest hit in the window leaves it
 * @param client           the store's handle on the client, opaque to the rules: handed back to the store's
 *                         other operations on the same decision so they need no second lookup
 */
public record HitStackState(int hitsInWindow, long millisUntilBelow, long millisUntilReset, Object client) {
}
