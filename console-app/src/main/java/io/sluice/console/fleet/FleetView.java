package io.sluice.console.fleet;

import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.SecondCounts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.fxml.FXMLLoader;
import javafx.scene.Parent;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.util.Duration;

/**
 * The fleet room's view ({@code Fleet.fxml}): binds {@link FleetViewModel} and does nothing else. A click on a
 * node shows its figures; "Cluster totals" goes back. {@link #start()} polls the fleet once a second until
 * {@link #dispose()}.
 */
public final class FleetView {
    /** How often the fleet is read: nodes publish every 100 ms, a silent one is marked after 2 s. */
    static final Duration POLL = Duration.seconds(1);
    private static final String SELECTED = "selected-node";

    private final FleetViewModel model;
    private final Timeline poll;

    @FXML private BorderPane root;
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
    @FXML private LineChart<Number, Number> focusChart;

    private FleetView(FleetViewModel model) {
        this.model = model;
        this.poll = new Timeline(new KeyFrame(POLL, event -> model.refresh()));
        poll.setCycleCount(Timeline.INDEFINITE);
    }

    /** Loads {@code Fleet.fxml} bound to {@code model}; call on the FX thread. */
    public static FleetView load(FleetViewModel model) {
        FXMLLoader loader = new FXMLLoader(FleetView.class.getResource("Fleet.fxml"));
        FleetView view = new FleetView(model);
        loader.setController(view);
        try {
            loader.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load Fleet.fxml", e);
        }
        return view;
    }

    /** The room's root, to mount in the shell. */
    public Parent root() {
        return root;
    }

    /** Reads the fleet now and then once a second. */
    public void start() {
        model.refresh();
        poll.play();
    }

    /** Stops polling (leaving the room or closing the console). */
    public void dispose() {
        poll.stop();
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
        alerts.visibleProperty().bind(javafx.beans.binding.Bindings.isNotEmpty(model.alerts()));
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
        model.focusSecondsProperty().addListener((property, before, now) -> chart(now));
        chart(model.focusSecondsProperty().get());
    }

    @FXML
    private void showTotals() {
        model.showTotals();
    }

    private void chart(List<SecondCounts> seconds) {
        XYChart.Series<Number, Number> requests = new XYChart.Series<>();
        requests.setName("requests/s");
        XYChart.Series<Number, Number> refused = new XYChart.Series<>();
        refused.setName("refused/s");
        long newest = seconds.stream().mapToLong(SecondCounts::epochSecond).max().orElse(0);
        for (SecondCounts second : seconds) {
            long all = 0;
            long refusals = 0;
            for (ClassCounts counts : second.byClass().values()) {
                long r = counts.refused().values().stream().mapToLong(Long::longValue).sum();
                all += counts.admitted() + counts.delayed() + r;
                refusals += r;
            }
            requests.getData().add(new XYChart.Data<>(second.epochSecond() - newest, all));
            refused.getData().add(new XYChart.Data<>(second.epochSecond() - newest, refusals));
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
