package io.sluice.engine.telemetry;

import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Category;
import java.time.Instant;

/**
 * One row of the hit-stack heatmap.
 *
 * @param ip               the client's IP
 * @param userAgent        the client's user agent
 * @param requestClass     its class
 * @param crawlerName      the matched crawler-list entry, or null
 * @param hitsInWindow     hits in the policy's hit-stack window
 * @param inFlight         requests in flight now
 * @param hitsPerSecond    hits in each of the last 60 seconds, oldest first (length 60)
 * @param refusedPerSecond refusals in each of the last 60 seconds, oldest first (length 60)
 * @param status           how it stands now
 * @param lastSeen         its last request
 * @param address          true for an address aggregate (every user agent of {@code ip}, which is then the address
 *                         or its prefix, e.g. {@code 2001:db8:1:2::/64}; {@code userAgent} is empty), shown when it
 *                         holds more than its busiest client or was refused by the address rules
 * @param crawlerIdentity  for a client whose user agent claims a crawler: whether the claim was verified; null for
 *                         any other row (and from a server older than the field)
 * @param cost             what its requests cost the upstream over the last minute; null from a server older than
 *                         the field
 * @param category         for a client whose user agent names a crawler-list entry: the entry's category; null for
 *                         any other row (and from a server older than the field)
 */
public record ClientRow(
        String ip,
        String userAgent,
        RequestClass requestClass,
        String crawlerName,
        int hitsInWindow,
        int inFlight,
        int[] hitsPerSecond,
        int[] refusedPerSecond,
        ClientStatus status,
        Instant lastSeen,
        boolean address,
        CrawlerIdentity crawlerIdentity,
        Cost cost,
        Category category) {

    /** A row without a category (the form before categories). */
    public ClientRow(String ip, String userAgent, RequestClass requestClass, String crawlerName, int hitsInWindow,
                     int inFlight, int[] hitsPerSecond, int[] refusedPerSecond, ClientStatus status, Instant lastSeen,
                     boolean address, CrawlerIdentity crawlerIdentity, Cost cost) {
        this(ip, userAgent, requestClass, crawlerName, hitsInWindow, inFlight, hitsPerSecond, refusedPerSecond, status,
                lastSeen, address, crawlerIdentity, cost, null);
    }

    /** A row without costs (the form before they were counted). */
    public ClientRow(String ip, String userAgent, RequestClass requestClass, String crawlerName, int hitsInWindow,
                     int inFlight, int[] hitsPerSecond, int[] refusedPerSecond, ClientStatus status, Instant lastSeen,
                     boolean address, CrawlerIdentity crawlerIdentity) {
        this(ip, userAgent, requestClass, crawlerName, hitsInWindow, inFlight, hitsPerSecond, refusedPerSecond, status,
                lastSeen, address, crawlerIdentity, null);
    }

    /** The upstream's time its requests took over the last minute, in microseconds (0 when unknown). */
    public long upstreamMicros() {
        return cost == null ? 0 : cost.upstreamMicros();
    }

    /** A row without a crawler claim, or an address aggregate. */
    public ClientRow(String ip, String userAgent, RequestClass requestClass, String crawlerName, int hitsInWindow,
                     int inFlight, int[] hitsPerSecond, int[] refusedPerSecond, ClientStatus status, Instant lastSeen,
                     boolean address) {
        this(ip, userAgent, requestClass, crawlerName, hitsInWindow, inFlight, hitsPerSecond, refusedPerSecond, status,
                lastSeen, address, null);
    }

    /** A client's row (not an address aggregate). */
    public ClientRow(String ip, String userAgent, RequestClass requestClass, String crawlerName, int hitsInWindow,
                     int inFlight, int[] hitsPerSecond, int[] refusedPerSecond, ClientStatus status, Instant lastSeen) {
        this(ip, userAgent, requestClass, crawlerName, hitsInWindow, inFlight, hitsPerSecond, refusedPerSecond, status,
                lastSeen, false);
    }
}
