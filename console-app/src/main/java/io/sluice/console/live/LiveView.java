package io.sluice.console.live;

import io.sluice.console.agents.AgentsView;
import io.sluice.console.chart.AuditMark;
import io.sluice.console.chart.ChartMarks;
import io.sluice.console.chart.MarkedAreaChart;
import io.sluice.console.chart.MarkedLineChart;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import io.sluice.engine.RequestClass;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.beans.value.ObservableDoubleValue;
import javafx.collections.FXCollections;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/** The live room's view: binds {@code LiveView.fxml} to a {@link LiveViewModel}. */
public final class LiveView implements Room {
    private final LiveViewModel model;
    private final NetworksView networks;
    private final AgentsView agents;
    private final AsnView asns;
    private final Parent root;
    private final Map<RequestClass, XYChart.Series<Number, Number>> served = new EnumMap<>(RequestClass.class);
    private final Map<RefusalKind, XYChart.Series<Number, Number>> refused = new EnumMap<>(RefusalKind.class);

    @FXML
    private MarkedLineChart servedChart;
    @FXML
    private MarkedAreaChart refusedChart;
    @FXML
    private Label inFlightLabel;
    @FXML
    private ProgressBar inFlightBar;
    @FXML
    private Label waitingLabel;
    @FXML
    private ProgressBar waitingBar;
    @FXML
    private Label latencyLabel;
    @FXML
    private Label clientsLabel;
    @FXML
    private Label refusalsLabel;
    @FXML
    private Label costSummary;
    @FXML
    private TabPane views;
    @FXML
    private Tab clientsTab;
    @FXML
    private Tab networksTab;
    @FXML
    private VBox clientPanel;
    @FXML
    private VBox networksSlot;
    @FXML
    private Tab agentsTab;
    @FXML
    private VBox agentsSlot;
    @FXML
    private ChoiceBox<LiveViewModel.HeatmapRanking> heatmapRanking;
    @FXML
    private Heatmap heatmap;
    @FXML
    private Label clientDetails;
    @FXML
    private ChoiceBox<BanDuration> banDuration;
    @FXML
    private TextField banReason;
    @FXML
    private Button banIp;
    @FXML
    private Button banAgent;
    @FXML
    private Button banClient;
    @FXML
    private Label actionResult;

    public LiveView(Session session) {
        this(new LiveViewModel(session), new NetworksView(session), new AgentsView(session), new AsnView(session));
    }

    public LiveView(LiveViewModel model, NetworksView networks, AgentsView agents) {
        this(model, networks, agents, null);
    }

    /** @param asns the autonomous systems under the networks table (shown with an IP-to-ASN file); null: none */
    public LiveView(LiveViewModel model, NetworksView networks, AgentsView agents, AsnView asns) {
        this.model = model;
        this.networks = networks;
        this.agents = agents;
        this.asns = asns;
        this.root = Fxml.load(this);
        networksSlot.getChildren().add(networks.view());
        VBox.setVgrow(networks.view(), Priority.ALWAYS);
        if (asns != null) {
            networksSlot.getChildren().add(asns.view());
        }
        agentsSlot.getChildren().add(agents.view());
        VBox.setVgrow(agents.view(), Priority.ALWAYS);
    }

    @FXML
    private void initialize() {
        for (RequestClass requestClass : RequestClass.values()) {
            XYChart.Series<Number, Number> series = new XYChart.Series<>();
            series.setName(requestClass.name().toLowerCase(Locale.ROOT));
            served.put(requestClass, series);
            servedChart.getData().add(series);
        }
        for (RefusalKind kind : RefusalKind.values()) {
            XYChart.Series<Number, Number> series = new XYChart.Series<>();
            series.setName(kind.label());
            refused.put(kind, series);
            refusedChart.getData().add(series);
        }
        for (ChartMarks marks : List.of(servedChart.marks(), refusedChart.marks())) {
            marks.window(model.chartEndProperty(), LiveViewModel.CHART_SECONDS);
            marks.follow(model.marks());
        }
        WhileShown ratesShown = new WhileShown(servedChart);
        model.snapshotProperty().addListener((o, was, now) -> ratesShown.run(this::showRates));

        inFlightLabel.textProperty().bind(model.inFlightProperty());
        bar(inFlightBar, model.inFlightShareProperty());
        waitingLabel.textProperty().bind(model.waitingProperty());
        bar(waitingBar, model.waitingShareProperty());
        latencyLabel.textProperty().bind(model.latencyProperty());
        clientsLabel.textProperty().bind(model.clientsProperty());
        refusalsLabel.textProperty().bind(model.refusalsProperty());
        costSummary.textProperty().bind(model.costSummaryProperty());
        model.costRisingProperty().addListener((o, was, rising) -> {
            costSummary.getStyleClass().remove("rising");
            if (rising) {
                costSummary.getStyleClass().add("rising");
            }
        });
        clientPanel.visibleProperty().bind(clientsTab.selectedProperty());
        clientPanel.managedProperty().bind(clientPanel.visibleProperty());
        heatmapRanking.setItems(FXCollections.observableArrayList(LiveViewModel.HeatmapRanking.values()));
        heatmapRanking.valueProperty().bindBidirectional(model.heatmapRankingProperty());

        heatmap.rowsProperty().bind(model.rows());
        heatmap.selectedIndexProperty().bind(model.selectedIndexProperty());
        heatmap.setOnRowClicked(model::select);

        clientDetails.textProperty().bind(model.detailsProperty());
        banDuration.setItems(FXCollections.observableArrayList(BanDuration.values()));
        banDuration.valueProperty().bindBidirectional(model.banDurationProperty());
        banReason.textProperty().bindBidirectional(model.banReasonProperty());
        bind(banIp, model.banIp());
        bind(banAgent, model.banUserAgent());
        bind(banClient, model.banClient());
        actionResult.textProperty().bind(model.actionResultProperty());

        heatmap.sceneProperty().addListener((o, was, scene) -> {
            if (scene != null) {
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN),
                        model.banIp()::execute);
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN),
                        model.banUserAgent()::execute);
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN,
                        KeyCombination.SHIFT_DOWN), model.banClient()::execute);
            }
        });
    }

    /** A load bar: its length the share of the limit, its style class "normal", "high" or "full". */
    private static void bar(ProgressBar bar, ObservableDoubleValue share) {
        bar.progressProperty().bind(share);
        share.addListener((o, was, now) -> {
            // a style class changed restyles the bar: only when its level changes, not with every snapshot
            String level = LiveViewModel.level(now.doubleValue());
            if (!bar.getStyleClass().contains(level)) {
                bar.getStyleClass().removeAll("normal", "high", "full");
                bar.getStyleClass().add(level);
            }
        });
        bar.getStyleClass().add(LiveViewModel.level(share.get()));
    }

    static void bind(Button button, Command command) {
        button.disableProperty().bind(command.executableProperty().not());
        button.setOnAction(e -> command.execute());
    }

    private void showRates() {
        served.forEach((requestClass, series) -> series.getData().setAll(model.served(requestClass).stream()
                .map(p -> new XYChart.Data<Number, Number>(p.epochSecond(), p.count())).toList()));
        // A kind with no refusal in the window is drawn by its two ends, not by a point a second: the stacked chart's
        // layout, the dearest of the room's, grows with the points of every series. (Not by none: JavaFX's stacked
        // chart fails on an empty series beside others.)
        refused.forEach((kind, series) -> {
            List<LiveViewModel.RatePoint> points = model.refused(kind);
            boolean none = points.size() > 2 && points.stream().allMatch(p -> p.count() == 0);
            series.getData().setAll((none ? List.of(points.get(0), points.get(points.size() - 1)) : points).stream()
                    .map(p -> new XYChart.Data<Number, Number>(p.epochSecond(), p.count())).toList());
        });
    }

    public LiveViewModel model() {
        return model;
    }

    /** The networks view, in the room's second tab. */
    public NetworksView networks() {
        return networks;
    }

    /** Shows the networks tab (Ctrl+Tab does the same from the keyboard). */
    public void showNetworks() {
        views.getSelectionModel().select(networksTab);
    }

    /** The autonomous systems under the networks table, or null when this room was built without them. */
    public AsnView asns() {
        return asns;
    }

    /** The agents view, in the room's third tab. */
    public AgentsView agents() {
        return agents;
    }

    /** Shows the agents tab. */
    public void showAgents() {
        views.getSelectionModel().select(agentsTab);
    }

    /** The marks the charts draw in their time range now (for tests). */
    public List<AuditMark> visibleMarks() {
        return servedChart.marks().visible();
    }

    @Override
    public String id() {
        return "live";
    }

    @Override
    public String title() {
        return "Live";
    }

    @Override
    public Parent view() {
        return root;
    }
}
