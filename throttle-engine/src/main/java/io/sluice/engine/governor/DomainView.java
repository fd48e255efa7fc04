package io.sluice.engine.governor;

import java.time.Instant;
import java.util.List;

/**
 * One domain as the console shows it.
 *
 * @param domain            the domain
 * @param rate              the learned rate, requests per second
 * @param effectiveRate     the rate actually granted, after the minimum delays
 * @param minDelayMillis    the operator's minimum gap between requests (0: none)
 * @param crawlDelayMillis  robots.txt {@code Crawl-delay} reported by workers (0: none)
 * @param breaker           the breaker's state
 * @param calls60s          responses in the breaker's last 60 s
 * @param errors60s         errors among them
 * @param blockedUntil      no grant before this ({@code Retry-After} or backoff), or null
 * @param blockReason       {@code RETRY_AFTER} or {@code BACKOFF} while blocked, else null
 * @param backoffLevel      how many times the 429 backoff has doubled
 * @param consecutiveErrors errors in a row; at the policy's limit the domain is given up
 * @param givenUp           given up until an operator revives it
 * @param recentStatuses    the last 50 statuses, oldest first (0: no response)
 * @param granted           permits granted
 * @param denied            permits refused
 * @param responses         feedback reports
 * @param slowDowns         slow-down answers among them (429, 503, a 403 from a domain that served before)
 * @param lastSeen          the last permit request or report
 * @param slowStart         the rate still doubles (no slow-down signal yet, or the site has grown since the last)
 * @param latencyBaselineMillis the latency baseline (the long window), or -1 while it is warming up
 */
public record DomainView(
        String domain,
        double rate,
        double effectiveRate,
        long minDelayMillis,
        long crawlDelayMillis,
        BreakerState breaker,
        int calls60s,
        int errors60s,
        Instant blockedUntil,
        PermitReason blockReason,
        int backoffLevel,
        int consecutiveErrors,
        boolean givenUp,
        List<Integer> recentStatuses,
        long granted,
        long denied,
        long responses,
        long slowDowns,
        Instant lastSeen,
        boolean slowStart,
        double latencyBaselineMillis) {

    public DomainView {
        recentStatuses = List.copyOf(recentStatuses);
    }
}
