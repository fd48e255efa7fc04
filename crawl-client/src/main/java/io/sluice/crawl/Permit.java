package io.sluice.crawl;

/**
 * The permit service's answer.
 *
 * @param domain     the domain as the server spells it
 * @param granted    fetch now
 * @param waitMillis when not granted, ask again after this long; -1 when the domain is given up
 * @param reason     when not granted: PACING, RETRY_AFTER, BACKOFF, BREAKER_OPEN or GIVEN_UP; from a cluster also
 *                   DOMAIN_LIMIT (a domain new to it while it keeps as many as it may: wait, or ask for another)
 */
public record Permit(String domain, boolean granted, long waitMillis, String reason) {
    public boolean givenUp() {
        return "GIVEN_UP".equals(reason);
    }
}
