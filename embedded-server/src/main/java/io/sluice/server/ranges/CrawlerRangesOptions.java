package io.sluice.server.ranges;

import java.time.Duration;

/**
 * Where a running server refreshes the crawlers' published ranges from, and how often ({@code --crawler-ranges},
 * {@code --crawler-ranges-refresh-hours}).
 *
 * @param source  the operator's file or URL, or null: only the state directory's copy is followed (what
 *                {@code sluice-server crawler-ranges update} writes)
 * @param refresh how often the source is read again
 */
public record CrawlerRangesOptions(RangesLocation source, Duration refresh) {

    /** The default refresh: once a day (publishers change their files every few days at most). */
    public static final Duration DEFAULT_REFRESH = Duration.ofHours(24);
    /** No source: the state directory's copy only. */
    public static final CrawlerRangesOptions NONE = new CrawlerRangesOptions(null, DEFAULT_REFRESH);

    public CrawlerRangesOptions {
        refresh = refresh == null ? DEFAULT_REFRESH : refresh;
        if (refresh.isNegative() || refresh.isZero()) {
            throw new IllegalArgumentException("the crawler ranges' refresh must be positive, not " + refresh);
        }
    }
}
