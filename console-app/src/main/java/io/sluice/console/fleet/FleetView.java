package io.sluice.console.fleet;

import io.sluice.console.chart.MarkedLineChart;
import io.sluice.console.chart.OperatorMarks;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;

/**
 * The fleet room's view: binds {@code FleetView.fxml} to a {@link FleetViewModel} and does nothing else. A click
 * on a node shows its figures; "Cluster totals" goes back. The fleet is read once a second while the room is seen,
 * through the session's executor like every other room's feed.
 */
public final class FleetView implements Room {
    /** How often the fleet is read: nodes publish every 100 ms, a silent one is marked after 2 s. */
    static final Duration POLL = Duration.ofSeconds(1);
    private static final String SELECTED = "selected-node";

    private final FleetViewModel model;
    private final Parent root;

    @FXML private Label summary;
    @FXML private Label redisBanner;
    @FXML private Label error;
    @FXML private ListView<String> alerts;
    @FXML private TableView<NodeRow> nodes;
    @FXML private TableColumn<NodeRow, String> nameColumn;
    @FXML private TableColumn<NodeRow, NodeRow> stateColumn;
    @FXML private TableColumn<NodeRow, Long> inFlightColumn;
    @FXML private TableColumn<NodeRow, String> requestsColumn;
    @FXML private TableColumn<NodeRow, String> refusedColumn;
    @FXML private TableColumn<NodeRow, String> policyColumn;
    @FXML private TableColumn<NodeRow, String> lastHeardColumn;
    @FXML private TableColumn<NodeRow, String> adminColumn;
    @FXML private Label focusTitle;
    @FXML private Button showTotals;
    @FXML private Label focusInFlight;
    @FXML private Label focusRequests;
    @FXML private Label focusRefused;
    @FXML private TableView<FleetViewModel.ClassRow> focusClasses;
    @FXML private TableColumn<FleetViewModel.ClassRow, String> classColumn;
    @FXML private TableColumn<FleetViewModel.ClassRow, String> classRequestsColumn;
    @FXML private TableColumn<FleetViewModel.ClassRow, String> classRefusedColumn;
    @FXML private MarkedLineChart focusChart;

    public FleetView(Session session) {
        this(new FleetViewModel(session.feed(session.client()::cluster, POLL),
                new OperatorMarks(session.ui(), session.client()::audit)));
    }

    public FleetView(FleetViewModel model) {
        this.model = model;
        this.root = Fxml.load(this);
    }

    public FleetViewModel model() {
        return model;
    }

    @Override
    public String id() {
        return "fleet";
    }

    @Override
    public String title() {
        return "Fleet";
    }

    @Override
    public Parent view() {
        return root;
    }

    /** Reads the fleet now and then once a second. */
    @Override
    public void shown() {
        model.start();
    }

    /** No reading while the room is not seen. */
    @Override
    public void hidden() {
        model.stop();
    }

    @FXML
    private void initialize() {
        summary.textProperty().bind(model.summaryProperty());
        error.textProperty().bind(model.errorProperty());
        error.visibleProperty().bind(model.errorProperty().isNotEmpty());
        error.managedProperty().bind(error.visibleProperty());
        redisBanner.visibleProperty().bind(model.redisDegradedProperty());
        redisBanner.managedProperty().bind(redisBanner.visibleProperty());
        alerts.setItems(model.alerts());
        alerts.visibleProperty().bind(Bindings.isNotEmpty(model.alerts()));
        alerts.managedProperty().bind(alerts.visibleProperty());

        nodes.setItems(model.nodes());
        text(nameColumn, NodeRow::name);
        text(requestsColumn, NodeRow::requests);
        text(refusedColumn, NodeRow::refused);
        text(policyColumn, NodeRow::policyVersion);
        text(lastHeardColumn, NodeRow::lastHeard);
        text(adminColumn, NodeRow::admin);
        inFlightColumn.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue().inFlight()));
        stateColumn.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue()));
        stateColumn.setCellFactory(column -> new StateCell());
        nodes.setRowFactory(table -> new NodeTableRow());
        model.selectedProperty().addListener((property, before, now) -> nodes.refresh());

        focusTitle.textProperty().bind(model.focusTitleProperty());
        showTotals.disableProperty().bind(model.selectedProperty().isNull());
        focusInFlight.textProperty().bind(model.focusInFlightProperty());
        focusRequests.textProperty().bind(model.focusRequestsProperty());
        focusRefused.textProperty().bind(model.focusRefusedProperty());
        focusClasses.setItems(model.focusClasses());
        classColumn.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(cell.getValue().requestClass().name()));
        text(classRequestsColumn, FleetViewModel.ClassRow::requests);
        text(classRefusedColumn, FleetViewModel.ClassRow::refused);
        focusChart.marks().window(model.chartEndProperty(), FleetViewModel.CHART_SECONDS);
        focusChart.marks().follow(model.marks());
        model.focusSecondsProperty().addListener((property, before, now) -> chart(now));
        chart(model.focusSecondsProperty().get());
    }

    @FXML
    private void showTotals() {
        model.showTotals();
    }

    private void chart(List<FleetViewModel.SecondRate> seconds) {
        XYChart.Series<Number, Number> requests = new XYChart.Series<>();
        requests.setName("requests/s");
        XYChart.Series<Number, Number> refused = new XYChart.Series<>();
        refused.setName("refused/s");
        for (FleetViewModel.SecondRate second : seconds) {
            requests.getData().add(new XYChart.Data<>(second.epochSecond(), second.requests()));
            refused.getData().add(new XYChart.Data<>(second.epochSecond(), second.refused()));
        }
        focusChart.getData().setAll(List.of(requests, refused));
    }

    private static <S> void text(TableColumn<S, String> column, Function<S, String> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }

    private static void healthClass(List<String> styleClasses, NodeHealth health) {
        styleClasses.removeAll(Arrays.stream(NodeHealth.values()).map(NodeHealth::styleClass).toList());
        if (health != null) {
            styleClasses.add(health.styleClass());
        }
    }

    /** A row tinted by its node's state; a click shows the node's figures. */
    private final class NodeTableRow extends TableRow<NodeRow> {
        NodeTableRow() {
            setOnMouseClicked(event -> {
                if (!isEmpty() && getItem() != null) {
                    model.select(getItem().name());
                }
            });
        }

        @Override
        protected void updateItem(NodeRow row, boolean empty) {
            super.updateItem(row, empty);
            healthClass(getStyleClass(), empty || row == null ? null : row.health());
            getStyleClass().remove(SELECTED);
            if (!empty && row != null && row.name().equals(model.selectedProperty().get())) {
                getStyleClass().add(SELECTED);
            }
        }
    }

    /** The state in words, in its colour. */
    private static final class StateCell extends TableCell<NodeRow, NodeRow> {
        StateCell() {
            getStyleClass().add("node-state");
        }

        @Override
        protected void updateItem(NodeRow row, boolean empty) {
            super.updateItem(row, empty);
            healthClass(getStyleClass(), empty || row == null ? null : row.health());
            setText(empty || row == null ? null : "● " + row.state());
        }
    }
}
