package io.sluice.console.agents;

import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agents view's logic, without the toolkit: one row per category (its action under the live policy, the agents
 * seen in it with their robots.txt compliance) and the one command a row has, changing its category's action. Shown by
 * {@link AgentsTable} in the live room's agents tab ({@link AgentsView}).
 */
public final class AgentsModel {

    private AgentsModel() {
    }

    /**
     * One category as the console shows it.
     *
     * @param category  the category
     * @param action    what the live policy does to its verified agents
     * @param agents    the agents seen in it, most requests first
     * @param requests  their requests since start
     * @param breaking  how many of them broke robots.txt at least once
     */
    public record CategoryRow(Category category, Agents.Action action, List<AgentRow> agents, long requests,
                              int breaking) {

        /** Their requests that were verified (their address is their operator's, or verification is off). */
        public long verified() {
            return agents.stream().mapToLong(AgentRow::verified).sum();
        }

        /** Their requests refused (or challenged) by the category's rule. */
        public long refused() {
            return agents.stream().mapToLong(AgentRow::refused).sum();
        }

        /** Their requests to a path robots.txt disallows them (the trap path included). */
        public long disallowed() {
            return agents.stream().mapToLong(AgentRow::disallowed).sum();
        }

        /** "GPTBot (120), CCBot (4, 2 disallowed)": the agents seen, for the row's last column. */
        public String agentsText() {
            StringBuilder text = new StringBuilder();
            for (AgentRow agent : agents) {
                text.append(text.length() == 0 ? "" : ", ").append(agent.name()).append(" (").append(agent.requests());
                if (agent.disallowed() > 0) {
                    text.append(", ").append(agent.disallowed()).append(" disallowed");
                }
                text.append(')');
            }
            return text.toString();
        }
    }

    /** Every category, in order, with the agents {@code snapshot} saw and the actions of {@code policy}. */
    public static List<CategoryRow> rows(Snapshot snapshot, Policy policy) {
        Map<Category, List<AgentRow>> seen = new EnumMap<>(Category.class);
        AgentsView view = snapshot == null ? null : snapshot.agents();
        if (view != null) {
            for (AgentRow agent : view.agents()) {
                seen.computeIfAbsent(agent.category(), k -> new ArrayList<>()).add(agent);
            }
        }
        List<CategoryRow> rows = new ArrayList<>();
        for (Category category : Category.values()) {
            List<AgentRow> agents = seen.getOrDefault(category, List.of());
            rows.add(new CategoryRow(category, policy.agents().rule(category).action(), List.copyOf(agents),
                    agents.stream().mapToLong(AgentRow::requests).sum(),
                    (int) agents.stream().filter(agent -> !agent.compliant()).count()));
        }
        return rows;
    }

    /**
     * {@code policy} with {@code category}'s action set to {@code action}, the rest of its rule kept (its message,
     * its status when the new action still refuses, its action for unverified claims): what the row's choice sends.
     */
    public static Policy withAction(Policy policy, Category category, Agents.Action action) {
        Agents agents = policy.agents();
        Agents.CategoryRule rule = agents.rule(category);
        boolean refuses = action == Agents.Action.REFUSE || rule.unverified() == Agents.Action.REFUSE;
        Agents.CategoryRule changed = new Agents.CategoryRule(action, rule.unverified(),
                refuses ? rule.status() : null, rule.message());
        Map<Category, Agents.CategoryRule> categories = new LinkedHashMap<>(agents.categories());
        if (changed.equals(Agents.CategoryRule.CRAWL)) {
            categories.remove(category);
        } else {
            categories.put(category, changed);
        }
        return policy.withAgents(agents.withCategories(categories));
    }
}
