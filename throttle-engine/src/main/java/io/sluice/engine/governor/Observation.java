package io.sluice.engine.governor;

/**
 * One response as the node that heard it reads it, ready to be judged (by this node's state, or by a
 * shared ledger for the whole cluster).
 *
 * @param status            the HTTP status, 0 for no response
 * @param error             a server error or no answer (what give-up counts)
 * @param slowDown          a "slower" answer: 429, 503, or a 403 from a domain that served this crawler before
 * @param retryAfterSeconds the response's {@code Retry-After}, capped at a day, or null (none, or 0)
 * @param latencySignal     this healthy answer completed the second inflated latency window in a row
 *                          ({@code LatencySignal}, which stays with the node: it needs every sample)
 * @param crawlDelayMicros  the robots.txt {@code Crawl-delay} reported with it, or null
 */
public record Observation(int status, boolean error, boolean slowDown, Long retryAfterSeconds,
        boolean latencySignal, Long crawlDelayMicros) {
}
