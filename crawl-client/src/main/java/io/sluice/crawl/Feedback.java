package io.sluice.crawl;

/**
 * What a worker saw when it fetched from a domain, for the governor to learn from.
 *
 * @param domain            the domain
 * @param status            the HTTP status, or 0 when no response came
 * @param retryAfterSeconds the response's {@code Retry-After}, or null
 * @param latencyMillis     time to the response headers
 * @param crawlDelaySeconds the domain's robots.txt {@code Crawl-delay} when known, or null
 */
public record Feedback(String domain, int status, Long retryAfterSeconds, long latencyMillis,
        Double crawlDelaySeconds) {

    public static Feedback of(String domain, int status, long latencyMillis) {
        return new Feedback(domain, status, null, latencyMillis, null);
    }
}
