package io.sluice.engine.telemetry;

/**
 * What a client's crawler claim is worth (docs/manual/classify.md, "Crawler verification"), on a heatmap row whose
 * user agent names a crawler of the policy's crawler tags.
 */
public enum CrawlerIdentity {
    /** Its address is the crawler's: it is a {@code CRAWLER} with the crawler's own spacing. */
    VERIFIED,
    /**
     * Only its user agent says so: not verified (a {@code BOT} keyed by its address), or believed unchecked
     * because the policy turned verification off (a {@code CRAWLER}).
     */
    CLAIMED
}
