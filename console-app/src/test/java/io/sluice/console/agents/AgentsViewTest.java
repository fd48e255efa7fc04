package io.sluice.console.agents;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.api.AdminClient;
import io.sluice.console.live.LiveView;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Category;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The live room's agents tab in a real window against a real server: a snapshot with agents shows a row per category
 * with its action and counts, a row per agent and the robots.txt line; choosing another action for a category makes
 * it the live policy's.
 */
@ExtendWith(ApplicationExtension.class)
class AgentsViewTest {
    private static final Snapshot WITH_AGENTS = new Snapshot(Instant.EPOCH, 0, null, List.of(), null, null, List.of(),
            null, List.of(), Map.of(), null, null, null, null, null, null, null, null, null, null,
            new AgentsView(List.of(
                    new AgentRow("GPTBot", Category.AI_TRAINING, Agents.Action.CRAWL, 12, 12, 0, 3),
                    new AgentRow("CCBot", Category.AI_TRAINING, Agents.Action.CRAWL, 5, 4, 0, 0),
                    new AgentRow("Googlebot", Category.SEARCH_ENGINE, Agents.Action.CRAWL, 40, 40, 0, 0)),
                    Instant.parse("2026-11-22T12:03:04Z"), 3, 2, 1));

    private SluiceServer server;
    private AdminClient client;
    private FxUiExecutor ui;
    private Session session;
    private LiveView live;

    @Start
    void start(Stage stage) throws Exception {
        server = TestSessions.server(Files.createTempDirectory("sluice-agents"));
        client = new AdminClient(server.adminUri(), server.adminToken(), "tester");
        ui = new FxUiExecutor();
        session = new Session("test", "admin", client, ui, Clock.systemUTC());
        live = new LiveView(session);
        live.showAgents();
        stage.setScene(new Scene(live.view(), 1200, 800));
        stage.show();
    }

    @AfterEach
    void stop() {
        session.close();
        ui.close();
        server.close();
    }

    @Test
    void aSnapshotWithAgentsShowsEachCategoryItsActionAndEachAgent(FxRobot robot) throws Exception {
        robot.interact(() -> live.agents().model().apply(WITH_AGENTS));
        TableView<?> categories = robot.lookup("#agentCategories").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> categories.getItems().size() == Category.values().length);

        AgentsModel.CategoryRow training = (AgentsModel.CategoryRow) categories.getItems()
                .get(Category.AI_TRAINING.ordinal());
        assertThat(training.action()).isEqualTo(Agents.Action.CRAWL);
        assertThat(training.requests()).isEqualTo(17);
        assertThat(training.verified()).isEqualTo(16);
        assertThat(training.disallowed()).isEqualTo(3);
        assertThat(training.breaking()).isEqualTo(1);
        assertThat(training.agentsText()).isEqualTo("GPTBot (12, 3 disallowed), CCBot (5)");
        assertThat(((AgentsModel.CategoryRow) categories.getItems().get(Category.SEO.ordinal())).agentsText())
                .as("a category no agent was seen in is still a row, to set its action ahead").isEmpty();

        TableView<?> agents = robot.lookup("#agentRows").queryAs(TableView.class);
        assertThat(agents.getItems()).extracting(row -> ((AgentRow) row).name())
                .containsExactly("GPTBot", "CCBot", "Googlebot");
        assertThat(robot.lookup("#agentRobots").queryAs(Label.class).getText())
                .isEqualTo("robots.txt read 12:03:04 UTC, 3 groups; trap fetched 2 times, 1 address marked now");
    }

    @Test
    void choosingAnActionForACategoryMakesItThePolicys(FxRobot robot) throws Exception {
        robot.interact(() -> live.agents().model().apply(WITH_AGENTS));
        TableView<?> categories = robot.lookup("#agentCategories").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> categories.getItems().size() == Category.values().length);
        long before = client.policy().version();

        ChoiceBox<Agents.Action> training = choiceOf(robot, categories, Category.AI_TRAINING).orElseThrow();
        robot.interact(() -> training.setValue(Agents.Action.REFUSE));

        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS,
                () -> client.policy().agents().rule(Category.AI_TRAINING).action() == Agents.Action.REFUSE);
        assertThat(client.policy().version()).isEqualTo(before + 1);
        assertThat(client.policy().agents().rule(Category.SEARCH_ENGINE).action())
                .as("the other categories keep theirs").isEqualTo(Agents.Action.CRAWL);
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> robot.lookup("#agentActionResult").queryAs(Label.class)
                .getText().startsWith("ai-training: refuse"));
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> ((AgentsModel.CategoryRow) categories.getItems()
                .get(Category.AI_TRAINING.ordinal())).action() == Agents.Action.REFUSE);
        // the rows' cells are made again after the change, on the toolkit's time: the row's choice is looked up again
        WaitForAsyncUtils.waitFor(15, TimeUnit.SECONDS, () -> choiceOf(robot, categories, Category.AI_TRAINING)
                .map(choice -> choice.getValue() == Agents.Action.REFUSE).orElse(false));
        assertThat(client.audit(20)).as("audited like any policy change").anySatisfy(entry -> assertThat(
                entry.path("action").asText()).isEqualTo("policy.replace"));
    }

    /** The action choice in {@code category}'s row, if its cell is shown now. */
    @SuppressWarnings("unchecked")
    private static Optional<ChoiceBox<Agents.Action>> choiceOf(FxRobot robot, TableView<?> table, Category category) {
        return robot.lookup(".agent-action").queryAllAs(ChoiceBox.class).stream()
                .map(choice -> (ChoiceBox<Agents.Action>) choice)
                .filter(choice -> choice.getParent() instanceof TableCell<?, ?> cell && cell.getTableRow() != null
                        && cell.getTableRow().getItem() != null
                        && ((AgentsModel.CategoryRow) cell.getTableRow().getItem()).category() == category)
                .findFirst();
    }
}
