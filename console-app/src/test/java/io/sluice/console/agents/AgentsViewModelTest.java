package io.sluice.console.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agents view's logic without the toolkit: what it shows before the policy is read, and a change that races. */
class AgentsViewModelTest {
    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();

    @Test
    void noActionIsShownOrSentBeforeThePolicyIsRead() {
        AgentsViewModel model = new AgentsViewModel(TestSessions.offline(ui));

        model.apply(snapshot(new AgentsView(List.of(), null, 0, 0, 0)));
        model.setAction(Category.AI_TRAINING, Agents.Action.REFUSE);

        assertThat(model.categoriesProperty().get()).as("a guessed action could be sent back").isEmpty();
        assertThat(model.sendingProperty().get()).isFalse();
        assertThat(model.actionResultProperty().get()).startsWith("Cannot read the policy");
        assertThat(model.robotsProperty().get())
                .isEqualTo("robots.txt not read from the upstream yet; trap fetched 0 times, 0 addresses marked now");
        model.apply(snapshot(null));
        assertThat(model.robotsProperty().get()).isEqualTo("robots.txt: this server does not report agents");
    }

    @Test
    void aChangeMadeMeanwhileIsMergedAndOneToTheSameCategoryIsNotOverwritten(@TempDir Path state) throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            Session session = TestSessions.on(server, ui);
            AgentsViewModel model = new AgentsViewModel(session);
            model.apply(snapshot(new AgentsView(List.of(), null, 0, 0, 0)));
            long read = model.policyProperty().get().version();
            AdminClient other = session.client();

            // Another operator refuses SEO: another category's rule, merged by the server with this choice.
            change(other, Category.SEO, Agents.Action.REFUSE);
            model.setAction(Category.AI_TRAINING, Agents.Action.REFUSE);

            assertThat(server.engine().policy().agents().rule(Category.AI_TRAINING).action())
                    .isEqualTo(Agents.Action.REFUSE);
            assertThat(server.engine().policy().agents().rule(Category.SEO).action())
                    .as("the other operator's change kept").isEqualTo(Agents.Action.REFUSE);
            assertThat(model.actionResultProperty().get())
                    .isEqualTo("ai-training: refuse (policy version " + (read + 2) + ")");
            assertThat(model.categoriesProperty().get().get(Category.SEO.ordinal()).action())
                    .isEqualTo(Agents.Action.REFUSE);

            // Then they allow AI training while this view still shows it refused: the same field, a conflict.
            change(other, Category.AI_TRAINING, Agents.Action.ALLOW);
            model.setAction(Category.AI_TRAINING, Agents.Action.CHALLENGE);

            assertThat(model.actionResultProperty().get())
                    .isEqualTo("Not applied: someone else changed the policy meanwhile; choose again");
            assertThat(server.engine().policy().agents().rule(Category.AI_TRAINING).action())
                    .isEqualTo(Agents.Action.ALLOW);
            assertThat(model.categoriesProperty().get().get(Category.AI_TRAINING.ordinal()).action())
                    .as("read again: the action in force").isEqualTo(Agents.Action.ALLOW);
        }
    }

    private static void change(AdminClient client, Category category, Agents.Action action) throws Exception {
        Policy live = client.policy();
        assertThat(client.putPolicy(AgentsModel.withAction(live, category, action), live.version()).installed())
                .isNotNull();
    }

    private static Snapshot snapshot(AgentsView agents) {
        return new Snapshot(Instant.EPOCH, 0, null, List.of(), null, null, List.of(), null, List.of(), Map.of(), null,
                null, null, null, null, null, null, null, null, null, agents);
    }
}
