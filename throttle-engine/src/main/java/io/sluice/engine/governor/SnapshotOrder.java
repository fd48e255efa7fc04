package io.sluice.engine.governor;

import java.util.Comparator;

/**
 * The order of the snapshot's domains, which lists only the first {@link CrawlGovernor#SNAPSHOT_DOMAINS}: what
 * needs an operator first (given up, then a breaker not closed, then blocked), then the busiest, then by name.
 */
final class SnapshotOrder {
    static final Comparator<DomainView> ATTENTION_FIRST = Comparator.comparingInt(SnapshotOrder::attention)
            .reversed()
            .thenComparing(Comparator.comparingLong(DomainView::granted).reversed())
            .thenComparing(DomainView::domain);

    private SnapshotOrder() {
    }

    private static int attention(DomainView view) {
        if (view.givenUp()) {
            return 3;
        }
        if (view.breaker() != BreakerState.CLOSED) {
            return 2;
        }
        return view.blockedUntil() != null ? 1 : 0;
    }
}
