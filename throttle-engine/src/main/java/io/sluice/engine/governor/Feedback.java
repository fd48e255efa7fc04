package io.sluice.engine.governor;

/**
 * What a worker saw when it fetched from a domain.
 *
 * @param domain            the domain it fetched from
 * @param status            the HTTP status, or 0 when no response came (connection refused, timeout)
 * @param retryAfterSeconds the response's {@code Retry-After} in seconds, or null
 * @param latencyMillis     time to the response headers, or -1 when unknown
 * @param crawlDelaySeconds the domain's robots.txt {@code Crawl-delay}, when the worker knows it, or null
 */
public record Feedback(String domain, int status, Long retryAfterSeconds, long latencyMillis,
        Double crawlDelaySeconds) {

    public static Feedback of(String domain, int status, long latencyMillis) {
        return new Feedback(domain, status, null, latencyMillis, null);
    }

    public Feedback withRetryAfter(long seconds) {
        return new Feedback(domain, status, seconds, latencyMillis, crawlDelaySeconds);
    }

    public Feedback withCrawlDelay(double seconds) {
        return new Feedback(domain, status, retryAfterSeconds, latencyMillis, seconds);
    }

    /**
     * A server error or no answer at all: what give-up counts. The breaker counts these and the
     * slow-down answers, which depend on the domain's history (a 403 is one only from a domain that
     * served before), so the domain decides those.
     */
    public boolean isError() {
        return status <= 0 || status >= 500;
    }
}
