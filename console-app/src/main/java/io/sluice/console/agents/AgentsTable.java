package io.sluice.console.agents;

import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.Snapshot;
import java.util.List;
import java.util.function.BiConsumer;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;

/**
 * The agents view: a table with a row per category (its name, the action the live policy gives it as a choice, the
 * agents seen in it with their robots.txt compliance, their requests). Choosing another action hands the category
 * and the action to {@link #setOnAction}, whose owner sends the policy change ({@link AgentsModel#withAction}).
 * Updated with {@link #show} on the FX thread, once per snapshot.
 */
public final class AgentsTable extends TableView<AgentsModel.CategoryRow> {

    private BiConsumer<Category, Agents.Action> onAction = (category, action) -> { };
    private boolean updating;

    public AgentsTable() {
        getStyleClass().add("agents-table");
        setColumnResizePolicy(CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        TableColumn<AgentsModel.CategoryRow, String> category = new TableColumn<>("Category");
        category.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().category().wire()));
        TableColumn<AgentsModel.CategoryRow, Agents.Action> action = new TableColumn<>("Action");
        action.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().action()));
        action.setCellFactory(column -> new ActionCell());
        TableColumn<AgentsModel.CategoryRow, Long> requests = new TableColumn<>("Requests");
        requests.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().requests()));
        TableColumn<AgentsModel.CategoryRow, Long> verified = new TableColumn<>("Verified");
        verified.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().verified()));
        TableColumn<AgentsModel.CategoryRow, Long> refused = new TableColumn<>("Refused");
        refused.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().refused()));
        TableColumn<AgentsModel.CategoryRow, Long> disallowed = new TableColumn<>("Disallowed");
        disallowed.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().disallowed()));
        TableColumn<AgentsModel.CategoryRow, String> agents = new TableColumn<>("Agents seen (robots.txt)");
        agents.setCellValueFactory(row -> new ReadOnlyObjectWrapper<>(row.getValue().agentsText()));
        getColumns().add(category);
        getColumns().add(action);
        getColumns().add(requests);
        getColumns().add(verified);
        getColumns().add(refused);
        getColumns().add(disallowed);
        getColumns().add(agents);
        for (TableColumn<AgentsModel.CategoryRow, ?> column : getColumns()) {
            column.setSortable(false); // the categories keep their order
        }
    }

    /** Who sends a row's new action. */
    public void setOnAction(BiConsumer<Category, Agents.Action> handler) {
        this.onAction = handler;
    }

    /** The rows of {@code snapshot} under {@code policy}; on the FX thread. */
    public void show(Snapshot snapshot, Policy policy) {
        show(AgentsModel.rows(snapshot, policy));
    }

    /** These rows; on the FX thread. */
    public void show(List<AgentsModel.CategoryRow> rows) {
        updating = true;
        try {
            getItems().setAll(rows);
        } finally {
            updating = false;
        }
    }

    /** The action of a row, as a choice: a change made by the operator (not by an update) is handed on. */
    private final class ActionCell extends TableCell<AgentsModel.CategoryRow, Agents.Action> {
        private final ChoiceBox<Agents.Action> choice = new ChoiceBox<>(
                FXCollections.observableArrayList(Agents.Action.values()));

        ActionCell() {
            choice.getStyleClass().add("agent-action");
            choice.setOnAction(event -> {
                AgentsModel.CategoryRow row = getTableRow() == null ? null : getTableRow().getItem();
                Agents.Action chosen = choice.getValue();
                if (!updating && row != null && chosen != null && chosen != row.action()) {
                    onAction.accept(row.category(), chosen);
                    // The choice shows the action in force: the chosen one once the server has it (a new row).
                    choose(row.action());
                }
            });
        }

        @Override
        protected void updateItem(Agents.Action item, boolean empty) {
            super.updateItem(item, empty);
            choose(empty ? null : item);
            setGraphic(empty ? null : choice);
        }

        private void choose(Agents.Action action) {
            boolean was = updating;
            updating = true;
            try {
                choice.setValue(action);
            } finally {
                updating = was;
            }
        }
    }
}
