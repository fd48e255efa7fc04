package io.sluice.console.live;

import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Toggle;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;

/**
 * The networks view the live room embeds beside its heatmap: binds {@code NetworksView.fxml} to a
 * {@link NetworksViewModel}. Every action has a key: the ranking's mnemonics (Alt+C, Alt+H, Alt+R), the table's
 * arrows, Ctrl+Shift+N to ban the selected network, Ctrl+Shift+L to lift its ban, Ctrl+Shift+C to have the browser
 * check ask it, Ctrl+Shift+U to stop.
 */
public final class NetworksView {
    private final NetworksViewModel model;
    private final Parent root;
    private boolean updating;

    @FXML private ToggleGroup rankingGroup;
    @FXML private ToggleButton byCost;
    @FXML private ToggleButton byHits;
    @FXML private ToggleButton byRefusals;
    @FXML private Label tableStats;
    @FXML private TableView<NetworksViewModel.Row> table;
    @FXML private TableColumn<NetworksViewModel.Row, String> networkColumn;
    @FXML private TableColumn<NetworksViewModel.Row, String> shareColumn;
    @FXML private TableColumn<NetworksViewModel.Row, String> upstreamColumn;
    @FXML private TableColumn<NetworksViewModel.Row, Long> hitsColumn;
    @FXML private TableColumn<NetworksViewModel.Row, Long> refusedColumn;
    @FXML private TableColumn<NetworksViewModel.Row, String> funnelColumn;
    @FXML private TableColumn<NetworksViewModel.Row, Integer> addressesColumn;
    @FXML private TableColumn<NetworksViewModel.Row, Integer> agentsColumn;
    @FXML private TableColumn<NetworksViewModel.Row, String> statusColumn;
    @FXML private Label details;
    @FXML private ChoiceBox<BanDuration> banDuration;
    @FXML private Button banNetwork;
    @FXML private Button undoBan;
    @FXML private Button challenge;
    @FXML private Button stopChallenging;
    @FXML private Label actionResult;

    public NetworksView(Session session) {
        this(new NetworksViewModel(session));
    }

    public NetworksView(NetworksViewModel model) {
        this.model = model;
        this.root = Fxml.load(this);
    }

    /** The view, to embed in the live room. */
    public Parent view() {
        return root;
    }

    public NetworksViewModel model() {
        return model;
    }

    @FXML
    private void initialize() {
        byCost.setUserData(NetworksViewModel.Ranking.COST);
        byHits.setUserData(NetworksViewModel.Ranking.HITS);
        byRefusals.setUserData(NetworksViewModel.Ranking.REFUSALS);
        showRanking(model.rankingProperty().get());
        model.rankingProperty().addListener((o, was, now) -> showRanking(now));
        rankingGroup.selectedToggleProperty().addListener((o, was, now) -> {
            if (now == null) {
                was.setSelected(true); // one ranking is always chosen
            } else {
                model.rankingProperty().set((NetworksViewModel.Ranking) now.getUserData());
            }
        });
        tableStats.textProperty().bind(model.tableProperty());

        column(networkColumn, NetworksViewModel.Row::cidr);
        column(shareColumn, NetworksViewModel.Row::share);
        column(upstreamColumn, NetworksViewModel.Row::upstream);
        column(hitsColumn, row -> row.network().hits());
        column(refusedColumn, row -> row.network().refused());
        column(funnelColumn, NetworksViewModel.Row::funnel);
        column(addressesColumn, row -> row.network().addresses());
        column(agentsColumn, row -> row.network().userAgents());
        column(statusColumn, NetworksViewModel.Row::status);
        table.setRowFactory(view -> new TableRow<>() {
            @Override
            protected void updateItem(NetworksViewModel.Row row, boolean empty) {
                super.updateItem(row, empty);
                pseudoClassOrStyle(this, !empty && row != null && row.ban() != null);
            }
        });
        WhileShown tableShown = new WhileShown(table);
        model.rowsProperty().addListener((o, was, now) -> tableShown.run(this::showRows));
        model.selectedIndexProperty().addListener((o, was, now) -> tableShown.run(this::showRows));
        showRows();
        table.getSelectionModel().selectedIndexProperty().addListener((o, was, now) -> {
            if (!updating && now.intValue() >= 0) {
                model.select(now.intValue());
            }
        });

        details.textProperty().bind(model.detailsProperty());
        banDuration.setItems(FXCollections.observableArrayList(BanDuration.values()));
        banDuration.valueProperty().bindBidirectional(model.banDurationProperty());
        LiveView.bind(banNetwork, model.banNetwork());
        LiveView.bind(undoBan, model.undoBan());
        LiveView.bind(challenge, model.challenge());
        LiveView.bind(stopChallenging, model.stopChallenging());
        actionResult.textProperty().bind(model.actionResultProperty());
        table.sceneProperty().addListener((o, was, scene) -> accelerators(scene));
    }

    private void accelerators(Scene scene) {
        if (scene != null) {
            scene.getAccelerators().put(new KeyCodeCombination(KeyCode.N, KeyCombination.SHORTCUT_DOWN,
                    KeyCombination.SHIFT_DOWN), model.banNetwork()::execute);
            scene.getAccelerators().put(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN,
                    KeyCombination.SHIFT_DOWN), model.undoBan()::execute);
            scene.getAccelerators().put(new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN,
                    KeyCombination.SHIFT_DOWN), model.challenge()::execute);
            scene.getAccelerators().put(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN,
                    KeyCombination.SHIFT_DOWN), model.stopChallenging()::execute);
        }
    }

    private void showRanking(NetworksViewModel.Ranking ranking) {
        for (Toggle toggle : rankingGroup.getToggles()) {
            if (toggle.getUserData() == ranking) {
                toggle.setSelected(true);
            }
        }
    }

    /** The model's rows, the selection kept on the model's (a new snapshot replaces every row). */
    private void showRows() {
        updating = true;
        try {
            table.getItems().setAll(model.rowsProperty().get());
            int index = model.selectedIndexProperty().get();
            if (index >= 0) {
                table.getSelectionModel().select(index);
            } else {
                table.getSelectionModel().clearSelection();
            }
        } finally {
            updating = false;
        }
    }

    private static <T> void column(TableColumn<NetworksViewModel.Row, T> column,
                                   Function<NetworksViewModel.Row, T> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }

    private static void pseudoClassOrStyle(TableRow<?> row, boolean banned) {
        if (banned) {
            if (!row.getStyleClass().contains("banned")) {
                row.getStyleClass().add("banned");
            }
        } else {
            row.getStyleClass().remove("banned");
        }
    }
}
