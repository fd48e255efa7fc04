package io.sluice.console.agents;

import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import io.sluice.engine.telemetry.AgentRow;
import java.util.Locale;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;

/**
 * The agents view the live room embeds in its third tab: binds {@code AgentsView.fxml} to an
 * {@link AgentsViewModel}. Above, a row per category ({@link AgentsTable}) whose action is a choice (the keyboard
 * reaches it: Tab into the table, the arrows to a row, Space opens the choice); below, a row per agent seen.
 */
public final class AgentsView {
    private final AgentsViewModel model;
    private final Parent root;

    @FXML private Label robots;
    @FXML private AgentsTable categories;
    @FXML private TableView<AgentRow> agents;
    @FXML private TableColumn<AgentRow, String> agentColumn;
    @FXML private TableColumn<AgentRow, String> categoryColumn;
    @FXML private TableColumn<AgentRow, String> actionColumn;
    @FXML private TableColumn<AgentRow, Long> requestsColumn;
    @FXML private TableColumn<AgentRow, Long> verifiedColumn;
    @FXML private TableColumn<AgentRow, Long> refusedColumn;
    @FXML private TableColumn<AgentRow, Long> disallowedColumn;
    @FXML private Label actionResult;

    public AgentsView(Session session) {
        this(new AgentsViewModel(session));
    }

    public AgentsView(AgentsViewModel model) {
        this.model = model;
        this.root = Fxml.load(this);
    }

    /** The view, to embed in the live room. */
    public Parent view() {
        return root;
    }

    public AgentsViewModel model() {
        return model;
    }

    @FXML
    private void initialize() {
        robots.textProperty().bind(model.robotsProperty());
        categories.setOnAction(model::setAction);
        categories.disableProperty().bind(model.sendingProperty());
        categories.show(model.categoriesProperty().get());
        WhileShown categoriesShown = new WhileShown(categories);
        model.categoriesProperty().addListener((o, was, now) -> categoriesShown.run(() -> categories.show(now)));

        column(agentColumn, AgentRow::name);
        column(categoryColumn, row -> row.category().wire());
        column(actionColumn, row -> row.action() == null ? "" : row.action().name().toLowerCase(Locale.ROOT));
        column(requestsColumn, AgentRow::requests);
        column(verifiedColumn, AgentRow::verified);
        column(refusedColumn, AgentRow::refused);
        column(disallowedColumn, AgentRow::disallowed);
        agents.getItems().setAll(model.agentsProperty().get());
        WhileShown agentsShown = new WhileShown(agents);
        model.agentsProperty().addListener((o, was, now) -> agentsShown.run(() -> agents.getItems().setAll(now)));
        actionResult.textProperty().bind(model.actionResultProperty());
    }

    private static <T> void column(TableColumn<AgentRow, T> column, Function<AgentRow, T> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }
}
