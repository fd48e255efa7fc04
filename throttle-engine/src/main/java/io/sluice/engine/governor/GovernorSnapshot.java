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
 * @param ignoredReports reports ignored by this node since start: their worker held no grant of the domain to report
 *                on (docs/manual/governor.md, "Several workers, one domain")
 */
public record GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts,
        Pacing pacing, long ignoredReports) {
    public GovernorSnapshot {
        domains = List.copyOf(domains);
        alerts = List.copyOf(alerts);
    }

    /** A snapshot that counts no ignored report. */
    public GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts,
            Pacing pacing) {
        this(at, tracked, domains, alerts, pacing, 0);
    }

    /** A snapshot that does not say where the pace is decided. */
    public GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts) {
        this(at, tracked, domains, alerts, null);
    }
}
