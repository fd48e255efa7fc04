package io.sluice.engine;

/**
 * The client's hit-stack quota, for the IETF {@code RateLimit-Policy} / {@code RateLimit} headers.
 *
 * @param limit         maxHits of the policy
 * @param remaining     hits left in the current window (never negative)
 * @param resetSeconds  seconds until at least one hit leaves the window
 * @param windowSeconds the window length
 */
public record RateLimitStatus(int limit, int remaining, long resetSeconds, int windowSeconds) {
}
