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
 */
public record GovernorSnapshot(Instant at, long tracked, List<DomainView> domains, List<GovernorAlert> alerts) {
    public GovernorSnapshot {
        domains = List.copyOf(domains);
        alerts = List.copyOf(alerts);
    }
}
