package io.sluice.engine.internal;

import io.sluice.engine.Reason;

/**
 * The answer of rule 3 (crawler spacing). When granted, the "last served" times were moved to now,
 * so a concurrent crawler request sees the slot taken; if the request is then not served, the caller
 * gives the slot back with {@link ClientStateStore#releaseCrawlerSlot(CrawlerSlot)}.
 *
 * @param refusal     null when granted, else {@link Reason#CRAWLER_SPACING} or {@link Reason#CRAWLERS_BUSY}
 * @param retryMillis when refused, time until it would be allowed
 * @param token       the store's record of what to undo (opaque to the rules)
 */
public record CrawlerSlot(Reason refusal, long retryMillis, Object token) {

    public boolean granted() {
        return refusal == null;
    }
}
