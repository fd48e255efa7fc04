package io.sluice.console.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.PolicyValidator;
import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agents view's logic: a row per category with the agents seen, and the action a row sets. */
class AgentsModelTest {

    private static Snapshot snapshot(List<AgentRow> agents) {
        return new Snapshot(Instant.EPOCH, 1, null, List.of(), null, null, List.of(), null, List.of(), Map.of(),
                null, null, null, null, null, null, null, null, null, null,
                new AgentsView(agents, null, 0, 0, 0));
    }

    @Test
    void everyCategoryIsARowWithTheAgentsSeenInIt() {
        Policy policy = Policy.defaults().withAgents(new Agents(Map.of(Category.AI_TRAINING,
                new Agents.CategoryRule(Agents.Action.REFUSE, null, 402, null)), null, null));
        List<AgentsModel.CategoryRow> rows = AgentsModel.rows(snapshot(List.of(
                new AgentRow("GPTBot", Category.AI_TRAINING, Agents.Action.REFUSE, 120, 120, 120, 0),
                new AgentRow("CCBot", Category.AI_TRAINING, Agents.Action.REFUSE, 4, 0, 4, 2),
                new AgentRow("Googlebot", Category.SEARCH_ENGINE, Agents.Action.CRAWL, 50, 50, 0, 0))), policy);
        assertThat(rows).extracting(AgentsModel.CategoryRow::category).containsExactly(Category.values());
        AgentsModel.CategoryRow training = rows.get(Category.AI_TRAINING.ordinal());
        assertThat(training.action()).isEqualTo(Agents.Action.REFUSE);
        assertThat(training.requests()).isEqualTo(124);
        assertThat(training.breaking()).isEqualTo(1);
        assertThat(training.agentsText()).isEqualTo("GPTBot (120), CCBot (4, 2 disallowed)");
        assertThat(rows.get(Category.MONITOR.ordinal()).agents()).isEmpty();
        assertThat(AgentsModel.rows(null, policy)).hasSize(Category.values().length);
    }

    @Test
    void aRowsActionChangesOnlyItsCategoryAndKeepsAValidPolicy() {
        Policy policy = Policy.defaults().withAgents(new Agents(Map.of(Category.AI_TRAINING,
                new Agents.CategoryRule(Agents.Action.REFUSE, null, 402, "Licence at /licence")), null, null));
        Policy allowed = AgentsModel.withAction(policy, Category.AI_TRAINING, Agents.Action.ALLOW);
        assertThat(allowed.agents().rule(Category.AI_TRAINING))
                .isEqualTo(new Agents.CategoryRule(Agents.Action.ALLOW, null, null, "Licence at /licence"));
        assertThat(PolicyValidator.validate(allowed)).isEmpty();
        Policy crawled = AgentsModel.withAction(Policy.defaults(), Category.SEO, Agents.Action.CRAWL);
        assertThat(crawled.agents().categories()).isEmpty();
        Policy refused = AgentsModel.withAction(Policy.defaults(), Category.SEO, Agents.Action.REFUSE);
        assertThat(refused.agents().rule(Category.SEO).action()).isEqualTo(Agents.Action.REFUSE);
        assertThat(refused.agents().rule(Category.SEARCH_ENGINE)).isEqualTo(Agents.CategoryRule.CRAWL);
    }
}
