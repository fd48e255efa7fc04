package io.sluice.engine;

import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts per named agent, for the snapshot's agents table and {@code /metrics}: requests, verified ones, refusals by
 * category, robots.txt violations. Keyed by the crawler list's readable names, so bounded by the list's size; the
 * bound {@link #MAX_AGENTS} stands in case names come from elsewhere one day. Increments only on the request path.
 */
final class AgentTallies {

    /** The most agents counted; beyond it a new name is not counted (it still gets its action). */
    static final int MAX_AGENTS = 5_000;

    private final ConcurrentHashMap<String, Tally> byName = new ConcurrentHashMap<>();
    private final LongAdder trapFetches = new LongAdder();

    /** One agent's counters. */
    static final class Tally {
        final Category category;
        final LongAdder requests = new LongAdder();
        final LongAdder verified = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder disallowed = new LongAdder();

        Tally(Category category) {
            this.category = category;
        }
    }

    /** The agent's counters (created on its first request), or null when {@link #MAX_AGENTS} are counted. */
    Tally of(String name, Category category) {
        Tally tally = byName.get(name);
        if (tally == null && byName.size() < MAX_AGENTS) {
            tally = byName.computeIfAbsent(name, k -> new Tally(category));
        }
        return tally;
    }

    void trapFetched() {
        trapFetches.increment();
    }

    /** The rows, most requests first, with each category's action under {@code agents}. */
    AgentsView view(Agents agents, java.time.Instant robotsReadAt, int robotsGroups, long marked) {
        List<AgentRow> rows = new ArrayList<>(byName.size());
        byName.forEach((name, tally) -> rows.add(new AgentRow(name, tally.category,
                agents.rule(tally.category).action(), tally.requests.sum(), tally.verified.sum(), tally.refused.sum(),
                tally.disallowed.sum())));
        rows.sort(Comparator.comparingLong(AgentRow::requests).reversed().thenComparing(AgentRow::name));
        return new AgentsView(rows.size() > AgentsView.MAX_ROWS ? rows.subList(0, AgentsView.MAX_ROWS) : rows,
                robotsReadAt, robotsGroups, trapFetches.sum(), marked);
    }
}
