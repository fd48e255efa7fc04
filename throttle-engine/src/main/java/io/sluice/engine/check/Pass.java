package io.sluice.engine.check;

/**
 * What a valid pass cookie says.
 *
 * @param id              the pass's identity (short base64url text): its requests share one hit stack whatever
 *                        address they come from
 * @param expiresAtMillis when it stops being good (epoch milliseconds, exclusive)
 * @param weak            earned by the no-JavaScript path (a wait, not a proof of work): served at a lower priority
 */
public record Pass(String id, long expiresAtMillis, boolean weak) {
}
