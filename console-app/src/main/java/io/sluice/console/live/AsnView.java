package io.sluice.console.live;

import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;

/**
 * The autonomous systems table of the networks tab: binds {@code AsnView.fxml} to an {@link AsnViewModel}. Shown only
 * while the server has an IP-to-ASN file (it takes no room otherwise); reached from the keyboard like the networks
 * table above it (Tab, then the arrows; Tab again to the selected AS's action, Space to press it).
 */
public final class AsnView {
    private final AsnViewModel model;
    private final Parent root;
    private boolean updating;

    @FXML private Label title;
    @FXML private TableView<AsnViewModel.Row> table;
    @FXML private TableColumn<AsnViewModel.Row, String> asnColumn;
    @FXML private TableColumn<AsnViewModel.Row, String> nameColumn;
    @FXML private TableColumn<AsnViewModel.Row, String> shareColumn;
    @FXML private TableColumn<AsnViewModel.Row, String> upstreamColumn;
    @FXML private TableColumn<AsnViewModel.Row, Long> hitsColumn;
    @FXML private TableColumn<AsnViewModel.Row, Long> refusedColumn;
    @FXML private TableColumn<AsnViewModel.Row, Integer> networksColumn;
    @FXML private TableColumn<AsnViewModel.Row, Integer> addressesColumn;
    @FXML private TableColumn<AsnViewModel.Row, String> statusColumn;
    @FXML private Label details;
    @FXML private Button challenge;
    @FXML private Button stopChallenging;
    @FXML private Label actionResult;

    public AsnView(Session session) {
        this(new AsnViewModel(session));
    }

    public AsnView(AsnViewModel model) {
        this.model = model;
        this.root = Fxml.load(this);
        root.visibleProperty().bind(model.availableProperty());
        root.managedProperty().bind(model.availableProperty());
    }

    /** The view, to embed under the networks table. */
    public Parent view() {
        return root;
    }

    public AsnViewModel model() {
        return model;
    }

    @FXML
    private void initialize() {
        title.textProperty().bind(model.titleProperty());
        column(asnColumn, AsnViewModel.Row::asn);
        column(nameColumn, AsnViewModel.Row::name);
        column(shareColumn, AsnViewModel.Row::share);
        column(upstreamColumn, AsnViewModel.Row::upstream);
        column(hitsColumn, row -> row.system().hits());
        column(refusedColumn, row -> row.system().refused());
        column(networksColumn, row -> row.system().networks());
        column(addressesColumn, row -> row.system().addresses());
        WhileShown tableShown = new WhileShown(table);
        model.rowsProperty().addListener((o, was, now) -> tableShown.run(this::showRows));
        table.getSelectionModel().selectedIndexProperty().addListener((o, was, now) -> {
            if (!updating) {
                model.select(now.intValue());
            }
        });
        column(statusColumn, AsnViewModel.Row::status);
        details.textProperty().bind(model.detailsProperty());
        LiveView.bind(challenge, model.challenge());
        LiveView.bind(stopChallenging, model.stopChallenging());
        actionResult.textProperty().bind(model.actionResultProperty());
    }

    /** The model's rows, the selection kept on the model's (a new snapshot replaces every row). */
    private void showRows() {
        updating = true;
        try {
            table.getItems().setAll(model.rowsProperty().get());
            AsnViewModel.Row current = model.selectedProperty().get();
            int index = current == null ? -1 : table.getItems().indexOf(current);
            if (index >= 0) {
                table.getSelectionModel().select(index);
            } else {
                table.getSelectionModel().clearSelection();
            }
        } finally {
            updating = false;
        }
    }

    private static <T> void column(TableColumn<AsnViewModel.Row, T> column, Function<AsnViewModel.Row, T> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }
}
