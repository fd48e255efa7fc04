package io.sluice.engine.governor;

import java.time.Instant;
import java.util.List;

/**
 * The governor at one instant.
 *
 * @param at      when it was taken
 * @param tracked domains the governor holds state for
 * @param domains the domains that need attention first (given up, breaker not closed, blocked), then
 *                the busiest; at most {@link CrawlGovernor#SNAPSHOT_DOMAINS}
 * @param alerts  give-up alerts, newest first
 * @param pacing  where the pace is decided: this node alone, the cluster, or this node while the cluster
 *                cannot be reached (null from a server that predates cluster mode)
 */
public record GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts,
        Pacing pacing) {
    public GovernorSnapshot {
        domains = List.copyOf(domains);
        alerts = List.copyOf(alerts);
    }

    /** A snapshot that does not say where the pace is decided. */
    public GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts) {
        this(at, tracked, domains, alerts, null);
    }
}
