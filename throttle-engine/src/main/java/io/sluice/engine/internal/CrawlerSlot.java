package io.sluice.engine.internal;

/**
 * The answer of rule 3 for one crawler. When granted, the crawler's "last served" time was moved to
 * {@code takenAt}, so a concurrent request of the same crawler sees the slot taken; if the request is then not
 * served, {@link ClientStateStore#releaseCrawler} puts {@code previous} back, unless the crawler was served
 * again meanwhile. Every field is plain data, so a shared store can undo by compare-and-set on its own copy.
 *
 * @param crawler    the crawler's identity (its crawler-list entry)
 * @param waitMillis 0 when granted, else the time until the crawler may be served
 * @param takenAt    when granted, the time recorded as its last service
 * @param previous   when granted, the time it replaced ({@link Long#MIN_VALUE}: never served)
 */
public record CrawlerSlot(String crawler, long waitMillis, long takenAt, long previous) {

    public static CrawlerSlot refused(String crawler, long waitMillis) {
        return new CrawlerSlot(crawler, waitMillis, 0, 0);
    }

    public boolean granted() {
        return waitMillis == 0;
    }
}
