package io.sluice.console.dashboard;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.domains.DomainsView;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import javafx.application.Platform;
import javafx.collections.FXCollections;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonType;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The console's main window: live overview, heatmap with one-click bans, ban list, limits and audit.
 * It only talks to the server through {@link AdminClient}, always off the FX thread.
 */
public final class DashboardView extends BorderPane {
    private static final Map<RequestClass, String> CLASS_COLOURS = Map.of(
            RequestClass.BROWSER, "#0072B2", RequestClass.CRAWLER, "#009E73", RequestClass.BOT, "#E69F00");

    private final DashboardViewModel model = new DashboardViewModel();
    private final AdminClient client;
    private final SnapshotPump<Snapshot> pump;
    private final HeatmapCanvas heatmap = new HeatmapCanvas(this::select);
    private final Map<RequestClass, XYChart.Series<Number, Number>> served = new EnumMap<>(RequestClass.class);
    private final XYChart.Series<Number, Number> refusedSeries = new XYChart.Series<>();
    private final ListView<Ban> bans = new ListView<>();
    private final ListView<com.fasterxml.jackson.databind.JsonNode> audit = new ListView<>();
    private final javafx.scene.control.TextArea auditDetails = new javafx.scene.control.TextArea();
    private final Label details = new Label("Select a client in the heatmap");
    private final TextField banReason = new TextField();
    private final ChoiceBox<String> banDuration = new ChoiceBox<>(FXCollections.observableArrayList(
            "1 hour", "10 minutes", "1 day", "permanent"));
    private final Label actionResult = new Label();
    private final LimitsForm limits;
    private final DomainsView domains;

    public DashboardView(AdminClient client) {
        this.client = client;
        this.pump = SnapshotPump.snapshots(client, Platform::runLater, this::show, this::failed);
        this.limits = new LimitsForm(client);
        this.domains = new DomainsView(client);
        getStyleClass().add("dashboard");
        setTop(topBar());
        TabPane tabs = new TabPane(
                new Tab("Live", live()),
                new Tab("Bans", bansTab()),
                new Tab("Limits", limits),
                new Tab("Domains", domains),
                new Tab("Audit", auditTab()));
        tabs.getTabs().forEach(t -> t.setClosable(false));
        tabs.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
            if ("Audit".equals(now.getText())) {
                refreshAudit();
            } else if ("Limits".equals(now.getText())) {
                limits.reload();
            }
        });
        setCenter(tabs);
        model.connectedTo(client.base().toString());
        sceneProperty().addListener((o, was, scene) -> {
            if (scene != null) {
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN),
                        () -> ban(model::banIp));
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN),
                        () -> ban(model::banUserAgent));
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.B, KeyCombination.SHORTCUT_DOWN,
                        KeyCombination.SHIFT_DOWN), () -> ban(model::banClient));
                scene.getAccelerators().put(new KeyCodeCombination(KeyCode.P, KeyCombination.SHORTCUT_DOWN),
                        this::togglePause);
            }
        });
        pump.start();
    }

    public DashboardViewModel model() {
        return model;
    }

    private Node topBar() {
        Label title = new Label("Sluice");
        title.getStyleClass().add("title");
        Label connection = new Label();
        connection.setId("connectionStatus");
        connection.textProperty().bind(model.connectionProperty());
        Label version = new Label();
        version.setId("policyVersion");
        version.textProperty().bind(model.policyVersionProperty());
        Label banner = new Label();
        banner.setId("pauseBanner");
        banner.getStyleClass().add("pause-banner");
        banner.textProperty().bind(model.pauseBannerProperty());
        banner.visibleProperty().bind(model.pausedProperty());
        banner.managedProperty().bind(model.pausedProperty());
        ChoiceBox<String> scope = new ChoiceBox<>(FXCollections.observableArrayList(
                "whole service", "BROWSER", "CRAWLER", "BOT"));
        scope.setId("pauseScope");
        scope.getSelectionModel().selectFirst();
        Button pause = new Button("Pause…");
        pause.setId("pauseButton");
        pause.getStyleClass().add("danger");
        pause.setOnAction(e -> confirmPause(true, scope.getValue()));
        Button resume = new Button("Resume");
        resume.setId("resumeButton");
        resume.setOnAction(e -> pauseOrResume(false, scope.getValue()));
        Region spacer = new Region();
        HBox.setHgrow(spacer, Priority.ALWAYS);
        HBox bar = new HBox(14, title, connection, version, banner, spacer, scope, pause, resume);
        bar.setAlignment(Pos.CENTER_LEFT);
        bar.setPadding(new Insets(10, 14, 10, 14));
        bar.getStyleClass().add("top-bar");
        return bar;
    }

    private Node live() {
        NumberAxis time = new NumberAxis();
        time.setForceZeroInRange(false);
        time.setTickLabelsVisible(false);
        time.setLabel("last " + DashboardViewModel.CHART_SECONDS + " s");
        NumberAxis perSecond = new NumberAxis();
        perSecond.setLabel("requests / s");
        LineChart<Number, Number> chart = new LineChart<>(time, perSecond);
        chart.setId("rateChart");
        chart.setAnimated(false);
        chart.setCreateSymbols(false);
        chart.setPrefHeight(230);
        for (RequestClass requestClass : RequestClass.values()) {
            XYChart.Series<Number, Number> series = new XYChart.Series<>();
            series.setName(requestClass.name() + " served");
            served.put(requestClass, series);
            chart.getData().add(series);
        }
        refusedSeries.setName("refused (all classes)");
        chart.getData().add(refusedSeries);
        colourSeries(chart);

        Label load = bound("loadLabel", model.loadProperty());
        Label latency = bound("latencyLabel", model.latencyProperty());
        Label clients = bound("clientsLabel", model.clientsProperty());
        Label refusals = bound("refusalsLabel", model.refusalsProperty());
        VBox numbers = new VBox(4, load, latency, clients, refusals);
        numbers.getStyleClass().add("numbers");

        heatmap.setId("heatmap");
        heatmap.widthProperty().bind(widthProperty().subtract(420));
        heatmap.widthProperty().addListener((o, was, now) -> redrawHeatmap());
        ScrollPane heatmapScroll = new ScrollPane(heatmap);
        heatmapScroll.setPrefHeight(380);

        VBox.setVgrow(heatmapScroll, Priority.ALWAYS);
        VBox left = new VBox(8, chart, numbers, new Label("Hit stack — busiest clients, last 60 s "
                + "(colour: hits/s; orange mark: refused)"), heatmapScroll);
        left.setPadding(new Insets(8));
        HBox.setHgrow(left, Priority.ALWAYS);
        HBox body = new HBox(left, clientPanel());
        return body;
    }

    private Node clientPanel() {
        details.setId("clientDetails");
        details.setWrapText(true);
        details.setPrefWidth(360);
        banReason.setPromptText("reason (optional)");
        banReason.setId("banReason");
        banDuration.getSelectionModel().selectFirst();
        banDuration.setId("banDuration");
        Button banIp = new Button("Ban IP  (Ctrl+B)");
        banIp.setId("banIp");
        banIp.setOnAction(e -> ban(model::banIp));
        Button banAgent = new Button("Ban user agent  (Ctrl+U)");
        banAgent.setId("banAgent");
        banAgent.setOnAction(e -> ban(model::banUserAgent));
        Button banClient = new Button("Ban this client  (Ctrl+Shift+B)");
        banClient.setId("banClient");
        banClient.setOnAction(e -> ban(model::banClient));
        for (Button b : List.of(banIp, banAgent, banClient)) {
            b.setMaxWidth(Double.MAX_VALUE);
            b.getStyleClass().add("danger");
            b.disableProperty().bind(model.selectedProperty().isNull());
        }
        actionResult.setId("actionResult");
        actionResult.setWrapText(true);
        VBox panel = new VBox(8, new Label("Selected client"), details, new Label("Ban for"), banDuration,
                banReason, banIp, banAgent, banClient, actionResult);
        panel.setPadding(new Insets(8));
        panel.setPrefWidth(380);
        panel.getStyleClass().add("client-panel");
        model.selectedProperty().addListener((o, was, row) -> details.setText(row == null
                ? "Select a client in the heatmap" : describe(row)));
        return panel;
    }

    private Node bansTab() {
        bans.setId("banList");
        bans.setCellFactory(list -> new javafx.scene.control.ListCell<>() {
            @Override
            protected void updateItem(Ban ban, boolean empty) {
                super.updateItem(ban, empty);
                if (empty || ban == null) {
                    setText(null);
                    setGraphic(null);
                    return;
                }
                Button unban = new Button("Unban");
                unban.setOnAction(e -> async(() -> {
                    client.unban(ban.id());
                    return ban;
                }, "Unbanned " + ban.value()));
                setGraphic(unban);
                setText(ban.type().name().toLowerCase() + " " + ban.value() + "   —  "
                        + DashboardViewModel.timeLeft(ban, Instant.now()) + "   reason: " + ban.reason()
                        + "   by " + ban.author());
            }
        });
        return bans;
    }

    private static Label bound(String id, javafx.beans.value.ObservableValue<String> text) {
        Label label = new Label();
        label.setId(id);
        label.textProperty().bind(text);
        return label;
    }

    private void colourSeries(LineChart<Number, Number> chart) {
        // Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
        StringBuilder css = new StringBuilder();
        int i = 0;
        for (RequestClass requestClass : RequestClass.values()) {
            css.append(".default-color").append(i).append(".chart-series-line{-fx-stroke:")
                    .append(CLASS_COLOURS.get(requestClass)).append(";}")
                    .append(".default-color").append(i).append(".chart-legend-item-symbol{-fx-background-color:")
                    .append(CLASS_COLOURS.get(requestClass)).append(";}");
            i++;
        }
        css.append(".default-color3.chart-series-line{-fx-stroke:#D55E00;-fx-stroke-dash-array:6 4;}")
                .append(".default-color3.chart-legend-item-symbol{-fx-background-color:#D55E00;}");
        chart.setStyle("");
        chart.getStylesheets().add("data:text/css," + css.toString().replace(" ", "%20").replace("#", "%23"));
    }

    private void show(Snapshot snapshot) {
        model.connectedTo(client.base().toString());
        model.apply(snapshot);
        for (RequestClass requestClass : RequestClass.values()) {
            served.get(requestClass).getData().setAll(model.rates(requestClass).stream()
                    .map(p -> new XYChart.Data<Number, Number>(p.epochSecond(), p.served())).toList());
        }
        List<DashboardViewModel.RatePoint> all = model.rates(RequestClass.BROWSER);
        List<DashboardViewModel.RatePoint> crawlers = model.rates(RequestClass.CRAWLER);
        List<DashboardViewModel.RatePoint> bots = model.rates(RequestClass.BOT);
        refusedSeries.getData().setAll(java.util.stream.IntStream.range(0, all.size())
                .mapToObj(i -> new XYChart.Data<Number, Number>(all.get(i).epochSecond(),
                        all.get(i).refused() + crawlers.get(i).refused() + bots.get(i).refused())).toList());
        bans.getItems().setAll(snapshot.bans());
        redrawHeatmap();
    }

    private void redrawHeatmap() {
        Snapshot snapshot = model.snapshotProperty().get();
        if (snapshot == null) {
            return;
        }
        List<ClientRow> rows = snapshot.topClients();
        ClientRow selected = model.selectedProperty().get();
        int index = -1;
        for (int i = 0; selected != null && i < rows.size(); i++) {
            if (rows.get(i).ip().equals(selected.ip()) && rows.get(i).userAgent().equals(selected.userAgent())) {
                index = i;
            }
        }
        heatmap.show(rows, index);
    }

    private void failed(AdminException failure) {
        model.disconnected(switch (failure.kind()) {
            case UNAUTHORISED -> "Wrong token: the server refused it";
            case UNREACHABLE -> "Unreachable, retrying: " + client.base();
            case CERTIFICATE_CHANGED -> "REFUSED: " + failure.getMessage();
            default -> "Error: " + failure.getMessage();
        });
    }

    /** Selects the heatmap's row {@code index}. */
    public void select(int index) {
        Snapshot snapshot = model.snapshotProperty().get();
        if (snapshot != null && index < snapshot.topClients().size()) {
            model.selectedProperty().set(snapshot.topClients().get(index));
            redrawHeatmap();
        }
    }

    private static String describe(ClientRow row) {
        int total = 0;
        int refused = 0;
        for (int i = 0; i < row.hitsPerSecond().length; i++) {
            total += row.hitsPerSecond()[i];
            refused += row.refusedPerSecond()[i];
        }
        return "IP: " + row.ip() + "\nUser agent: " + row.userAgent() + "\nClass: " + row.requestClass()
                + (row.crawlerName() == null ? "" : " (" + row.crawlerName() + ")")
                + "\nStatus: " + row.status() + "\nHits in window: " + row.hitsInWindow() + "   in flight: "
                + row.inFlight() + "\nLast 60 s: " + total + " hits, " + refused + " refused";
    }

    private void ban(java.util.function.Function<ClientRow, DashboardViewModel.BanTarget> what) {
        ClientRow row = model.selectedProperty().get();
        if (row == null) {
            return;
        }
        DashboardViewModel.BanTarget target = what.apply(row);
        Long seconds = switch (banDuration.getValue()) {
            case "10 minutes" -> 600L;
            case "1 day" -> 86_400L;
            case "permanent" -> null;
            default -> 3_600L;
        };
        String reason = banReason.getText().isBlank() ? "banned from the console" : banReason.getText();
        async(() -> client.ban(target.type(), target.value(), reason, seconds), "Banned " + target.description());
    }

    private void confirmPause(boolean pause, String scope) {
        Alert confirm = new Alert(Alert.AlertType.CONFIRMATION);
        confirm.setTitle("Pause " + scope);
        confirm.setHeaderText("Pause " + scope + "?");
        confirm.setContentText("Every request of " + scope + " will get a 503 until you resume.");
        ButtonType yes = new ButtonType("Pause " + scope, javafx.scene.control.ButtonBar.ButtonData.OK_DONE);
        confirm.getButtonTypes().setAll(ButtonType.CANCEL, yes);
        // Enter must not pause by accident: Cancel is the default button.
        ((Button) confirm.getDialogPane().lookupButton(yes)).setDefaultButton(false);
        ((Button) confirm.getDialogPane().lookupButton(ButtonType.CANCEL)).setDefaultButton(true);
        confirm.getDialogPane().lookupButton(yes).setId("confirmPause");
        confirm.initOwner(getScene() == null ? null : getScene().getWindow());
        confirm.showAndWait().filter(yes::equals).ifPresent(b -> pauseOrResume(pause, scope));
    }

    private void togglePause() {
        if (model.pausedProperty().get()) {
            pauseOrResume(false, "whole service");
        } else {
            confirmPause(true, "whole service");
        }
    }

    private void pauseOrResume(boolean pause, String scope) {
        RequestClass only = "whole service".equals(scope) ? null : RequestClass.valueOf(scope);
        async(() -> {
            client.pause(pause, only);
            return scope;
        }, (pause ? "Paused " : "Resumed ") + scope);
    }

    /** An admin action off the FX thread; its result shown, then a fresh snapshot fetched. */
    interface Action {
        Object run() throws AdminException;
    }

    void async(Action action, String done) {
        async(action, done, r -> { });
    }

    void async(Action action, String done, Consumer<Object> then) {
        CompletableFuture.supplyAsync(() -> {
            try {
                return action.run();
            } catch (AdminException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }).whenComplete((result, failure) -> Platform.runLater(() -> {
            actionResult.setText(failure == null ? done : "Failed: " + failure.getCause().getMessage());
            if (failure == null) {
                then.accept(result);
            }
            pump.refreshSoon();
        }));
    }

    /** The audit list, newest first; the selected entry's before and after below it. */
    private Node auditTab() {
        audit.setId("auditList");
        audit.setCellFactory(list -> new javafx.scene.control.ListCell<>() {
            @Override
            protected void updateItem(com.fasterxml.jackson.databind.JsonNode entry, boolean empty) {
                super.updateItem(entry, empty);
                setText(empty || entry == null ? null : AuditText.line(entry));
            }
        });
        auditDetails.setId("auditDetails");
        auditDetails.setEditable(false);
        auditDetails.getStyleClass().add("numbers");
        audit.getSelectionModel().selectedItemProperty().addListener((o, was, entry) ->
                auditDetails.setText(entry == null ? "" : AuditText.beforeAfter(entry)));
        javafx.scene.control.SplitPane split = new javafx.scene.control.SplitPane(audit, auditDetails);
        split.setOrientation(javafx.geometry.Orientation.VERTICAL);
        split.setDividerPositions(0.6);
        return split;
    }

    private void refreshAudit() {
        async(() -> client.audit(200), "Audit loaded", result -> {
            @SuppressWarnings("unchecked")
            List<com.fasterxml.jackson.databind.JsonNode> entries =
                    (List<com.fasterxml.jackson.databind.JsonNode>) result;
            audit.getItems().setAll(entries);
        });
    }

    public void close() {
        pump.close();
        domains.close();
    }
}
