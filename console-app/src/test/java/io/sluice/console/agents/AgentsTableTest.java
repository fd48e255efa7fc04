package io.sluice.console.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javafx.scene.Scene;
import javafx.scene.control.ChoiceBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The agents view in a real window: a row per category, and a row's action choice hands on the change. */
@ExtendWith(ApplicationExtension.class)
class AgentsTableTest {
    private AgentsTable table;
    private final List<String> sent = new ArrayList<>();

    @Start
    void start(Stage stage) {
        table = new AgentsTable();
        table.setOnAction((category, action) -> sent.add(category.wire() + "=" + action));
        Snapshot snapshot = new Snapshot(Instant.EPOCH, 1, null, List.of(), null, null, List.of(), null, List.of(),
                Map.of(), null, null, null, null, null, null, null, null, null, null, new AgentsView(List.of(
                        new AgentRow("GPTBot", Category.AI_TRAINING, Agents.Action.CRAWL, 12, 12, 0, 3)),
                        null, 0, 0, 0));
        table.show(snapshot, Policy.defaults());
        stage.setScene(new Scene(table, 900, 400));
        stage.show();
    }

    @Test
    void everyCategoryIsARowAndChoosingAnActionHandsItOn(FxRobot robot) {
        assertThat(table.getItems()).hasSize(Category.values().length);
        assertThat(table.getItems().get(Category.AI_TRAINING.ordinal()).agentsText())
                .isEqualTo("GPTBot (12, 3 disallowed)");
        @SuppressWarnings("unchecked")
        List<ChoiceBox<Agents.Action>> choices = robot.lookup(".agent-action").queryAllAs(ChoiceBox.class)
                .stream().map(c -> (ChoiceBox<Agents.Action>) c).toList();
        assertThat(choices).hasSize(Category.values().length);
        assertThat(sent).as("showing rows sends nothing").isEmpty();
        ChoiceBox<Agents.Action> training = choices.stream()
                .filter(c -> c.getParent() != null && table.getItems().indexOf(
                        ((javafx.scene.control.TableCell<?, ?>) c.getParent()).getTableRow().getItem())
                        == Category.AI_TRAINING.ordinal()).findFirst().orElseThrow();
        robot.interact(() -> training.setValue(Agents.Action.REFUSE));
        assertThat(sent).containsExactly("ai-training=REFUSE");
    }
}
