package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy's {@code agents} field: its JSON form, its defaults and its validation. */
class AgentsPolicyTest {

    @Test
    void theJsonFormReadsAsDocumented() throws Exception {
        String json = """
                {"categories": {"ai-training": {"action": "refuse", "status": 402, "message": "Licence: /licence"},
                                "search-engine": {"action": "crawl", "unverified": "refuse"},
                                "archive": {"action": "allow"}},
                 "robots": {"escalation": {"scope": "client", "refusals": 5, "withinSeconds": 600,
                            "banSeconds": 3600, "growth": 2, "maxBanSeconds": 86400}},
                 "trap": {"path": "/.well-hidden/", "action": "ban", "seconds": 3600, "injectLinks": true}}
                """;
        Agents agents = PolicyJson.mapper().readValue(json, Agents.class);
        assertThat(agents.rule(Category.AI_TRAINING)).isEqualTo(
                new Agents.CategoryRule(Agents.Action.REFUSE, null, 402, "Licence: /licence"));
        assertThat(agents.rule(Category.SEARCH_ENGINE).actionFor(false)).isEqualTo(Agents.Action.REFUSE);
        assertThat(agents.rule(Category.ARCHIVE).actionFor(false)).isEqualTo(Agents.Action.CRAWL);
        assertThat(agents.rule(Category.MONITOR)).isEqualTo(Agents.CategoryRule.CRAWL);
        assertThat(agents.trap()).isEqualTo(new Agents.Trap("/.well-hidden/", Agents.TrapAction.BAN, 3600, true));
        assertThat(agents.robots().escalation().refusals()).isEqualTo(5);
        Policy policy = Policy.defaults().withAgents(agents);
        assertThat(PolicyValidator.validate(policy)).isEmpty();
        String written = PolicyJson.mapper().writeValueAsString(policy);
        assertThat(PolicyJson.mapper().readValue(written, Policy.class)).isEqualTo(policy);
        assertThat(written).contains("\"ai-training\"");
    }

    @Test
    void aPolicyWithoutTheFieldCrawlsEveryCategory() throws Exception {
        ObjectNode written = PolicyJson.mapper().valueToTree(Policy.defaults());
        assertThat(written.remove("agents")).isNotNull();
        Policy read = PolicyJson.mapper().treeToValue(written, Policy.class);
        assertThat(read.agents()).isEqualTo(Agents.DEFAULTS);
    }

    @Test
    void anUnknownCategoryOrActionIsAnError() {
        assertThatThrownBy(() -> PolicyJson.mapper().readValue("{\"categories\": {\"ai\": {\"action\": \"crawl\"}}}",
                Agents.class)).hasMessageContaining("unknown category 'ai'").hasMessageContaining("ai-training");
        assertThatThrownBy(() -> PolicyJson.mapper().readValue(
                "{\"categories\": {\"seo\": {\"action\": \"block\"}}}", Agents.class))
                .isNotInstanceOf(ValueInstantiationException.class).hasMessageContaining("block");
    }

    @Test
    void everyBadFieldIsNamed() {
        Map<Category, Agents.CategoryRule> categories = new LinkedHashMap<>();
        categories.put(Category.SEO, new Agents.CategoryRule(null, null, null, null));
        categories.put(Category.AI_TRAINING, new Agents.CategoryRule(Agents.Action.REFUSE, null, 404, ""));
        categories.put(Category.ARCHIVE, new Agents.CategoryRule(Agents.Action.ALLOW, null, 402, null));
        Agents agents = new Agents(categories,
                new Agents.Robots(new Escalation(Escalation.Scope.CLIENT, 0, 600, 3600, 2, 86_400)),
                new Agents.Trap("/robots", Agents.TrapAction.CHALLENGE, 0, false));
        List<FieldError> errors = PolicyValidator.validate(Policy.defaults().withAgents(agents));
        assertThat(errors).extracting(FieldError::field).containsExactly(
                "agents.categories.seo.action",
                "agents.categories.ai-training.status",
                "agents.categories.ai-training.message",
                "agents.categories.archive.status",
                "agents.robots.escalation.refusals",
                "agents.trap.path",
                "agents.trap.seconds");
        assertThat(errors.get(1).message()).isEqualTo("must be 403 (Forbidden) or 402 (Payment Required), was 404");
        assertThat(errors.get(5).message()).contains("must not cover /robots.txt");
        assertThat(PolicyValidator.validate(Policy.defaults().withAgents(
                new Agents(Map.of(), null, new Agents.Trap("no-slash", null, 60, false)))))
                .extracting(FieldError::field).containsExactly("agents.trap.path");
        assertThat(PolicyValidator.validate(Policy.defaults().withAgents(
                new Agents(Map.of(), null, new Agents.Trap(null, null, 0, true)))))
                .extracting(FieldError::message).containsExactly("needs agents.trap.path: there is no trap to link to");
    }
}
