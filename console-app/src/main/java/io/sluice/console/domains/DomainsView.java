package io.sluice.console.domains;

import io.sluice.console.ui.Command;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.WhileShown;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;

/**
 * The domains room's view (the crawl governor): binds {@code DomainsView.fxml} to a {@link DomainsViewModel};
 * given-up domains as alerts at the top, the operator's actions on the selected domain at the right.
 */
public final class DomainsView implements Room {
    private final DomainsViewModel model;
    private final Parent root;

    @FXML
    private Label domainsSummary;
    @FXML
    private ListView<String> domainAlerts;
    @FXML
    private TableView<DomainsViewModel.DomainRow> domainsTable;
    @FXML
    private Label selectedDomain;
    @FXML
    private TextField domainRate;
    @FXML
    private Button setDomainRate;
    @FXML
    private TextField domainMinDelay;
    @FXML
    private Button setDomainMinDelay;
    @FXML
    private Button resetDomain;
    @FXML
    private Button reviveDomain;
    @FXML
    private Label domainActionResult;

    public DomainsView(Session session) {
        this.model = new DomainsViewModel(session);
        this.root = Fxml.load(this);
        model.start();
    }

    @FXML
    private void initialize() {
        domainsSummary.textProperty().bind(model.summaryProperty());
        domainAlerts.setItems(model.alerts());
        domainAlerts.visibleProperty().bind(Bindings.isNotEmpty(model.alerts()));
        domainAlerts.managedProperty().bind(domainAlerts.visibleProperty());

        domainsTable.setItems(new WhileShown(domainsTable).mirror(model.rows()));
        domainsTable.getColumns().add(column("Domain", DomainsViewModel.DomainRow::domain, 130));
        domainsTable.getColumns().add(column("Rate", DomainsViewModel.DomainRow::rate, 150));
        domainsTable.getColumns().add(column("Min delay", DomainsViewModel.DomainRow::minDelay, 110));
        domainsTable.getColumns().add(column("Breaker", DomainsViewModel.DomainRow::breaker, 90));
        domainsTable.getColumns().add(column("Errors/60 s", DomainsViewModel.DomainRow::errors, 80));
        domainsTable.getColumns().add(column("Blocked", DomainsViewModel.DomainRow::blocked, 170));
        domainsTable.getColumns().add(column("Last 50 statuses", DomainsViewModel.DomainRow::statuses, 150));
        domainsTable.getColumns().add(column("Permits", DomainsViewModel.DomainRow::permits, 140));
        // Every column stays in view: the operator should not have to scroll to see why a row stands out.
        domainsTable.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        domainsTable.setRowFactory(t -> new TableRow<>() {
            @Override
            protected void updateItem(DomainsViewModel.DomainRow row, boolean empty) {
                super.updateItem(row, empty);
                getStyleClass().remove("attention");
                if (!empty && row != null && row.needsAttention()) {
                    getStyleClass().add("attention");
                }
            }
        });
        domainsTable.getSelectionModel().selectedItemProperty().addListener((o, was, row) -> {
            if (row != null) {
                model.select(row.domain());
            }
        });
        model.rows().addListener((ListChangeListener<DomainsViewModel.DomainRow>) c -> {
            // The rows are replaced with every fetch: keep the table's selection on the model's domain.
            DomainsViewModel.DomainRow chosen = model.selectedProperty().get();
            if (chosen != null) {
                model.rows().stream().filter(r -> r.domain().equals(chosen.domain())).findFirst()
                        .ifPresent(r -> domainsTable.getSelectionModel().select(r));
            }
        });

        selectedDomain.textProperty().bind(model.selectedTextProperty());
        domainRate.textProperty().bindBidirectional(model.rateProperty());
        domainMinDelay.textProperty().bindBidirectional(model.minDelayProperty());
        bind(setDomainRate, model.setRate());
        bind(setDomainMinDelay, model.setMinDelay());
        bind(resetDomain, model.reset());
        bind(reviveDomain, model.revive());
        domainActionResult.textProperty().bind(model.actionResultProperty());
    }

    private static void bind(Button button, Command command) {
        button.disableProperty().bind(command.executableProperty().not());
        button.setOnAction(e -> command.execute());
    }

    private static TableColumn<DomainsViewModel.DomainRow, String> column(String title,
            Function<DomainsViewModel.DomainRow, String> cell, double width) {
        TableColumn<DomainsViewModel.DomainRow, String> column = new TableColumn<>(title);
        column.setCellValueFactory(data -> new ReadOnlyStringWrapper(cell.apply(data.getValue()))
                .getReadOnlyProperty());
        column.setPrefWidth(width);
        return column;
    }

    public DomainsViewModel model() {
        return model;
    }

    @Override
    public String id() {
        return "domains";
    }

    @Override
    public String title() {
        return "Domains";
    }

    @Override
    public Parent view() {
        return root;
    }
}
