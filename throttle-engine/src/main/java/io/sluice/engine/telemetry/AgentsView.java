package io.sluice.engine.telemetry;

import java.time.Instant;
import java.util.List;

/**
 * Agents in the snapshot: the named agents seen, by category, with their robots.txt compliance; and the state of the
 * upstream's robots.txt and of the trap.
 *
 * @param agents        the agents seen, most requests first (at most {@link #MAX_ROWS})
 * @param robotsReadAt  when the front end last installed the upstream's robots.txt; null before it has
 * @param robotsGroups  the groups that robots.txt has
 * @param trapFetches   requests to the trap path since start
 * @param trapMarked    addresses the trap has marked for the browser check, now
 */
public record AgentsView(List<AgentRow> agents, Instant robotsReadAt, int robotsGroups, long trapFetches,
                         long trapMarked) {

    /** The most rows a snapshot carries. */
    public static final int MAX_ROWS = 200;

    public AgentsView {
        agents = agents == null ? List.of() : List.copyOf(agents);
    }
}
