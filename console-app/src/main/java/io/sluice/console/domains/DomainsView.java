package io.sluice.console.domains;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.dashboard.SnapshotPump;
import io.sluice.engine.governor.GovernorSnapshot;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;

/**
 * The crawl governor's domains: rate, delays, breaker, blocks, recent statuses; given-up domains as
 * alerts at the top; the operator's actions on the selected domain.
 */
public final class DomainsView extends BorderPane {
    private final AdminClient client;
    private final DomainsViewModel model = new DomainsViewModel();
    private final SnapshotPump<GovernorSnapshot> pump;
    private final TableView<DomainsViewModel.DomainRow> table = new TableView<>(model.rows());
    private final Label selected = new Label("Select a domain");
    private final TextField rate = new TextField();
    private final TextField minDelay = new TextField();
    private final Button revive = new Button("Revive");
    private final Label result = new Label();
    private String selectedDomain;

    public DomainsView(AdminClient client) {
        this.client = client;
        this.pump = new SnapshotPump<>(GovernorSnapshot.class, client::domains, Duration.ofSeconds(2),
                Platform::runLater, this::show, failure -> result.setText("Cannot load domains: "
                        + failure.getMessage()));
        getStyleClass().add("domains");

        Label summary = new Label();
        summary.setId("domainsSummary");
        summary.textProperty().bind(model.summaryProperty());
        ListView<String> alerts = new ListView<>(model.alerts());
        alerts.setId("domainAlerts");
        alerts.getStyleClass().add("alerts");
        alerts.setPrefHeight(90);
        alerts.visibleProperty().bind(javafx.beans.binding.Bindings.isNotEmpty(model.alerts()));
        alerts.managedProperty().bind(alerts.visibleProperty());
        VBox top = new VBox(6, summary, alerts);
        top.setPadding(new Insets(8));
        setTop(top);

        table.setId("domainsTable");
        table.setPlaceholder(new Label("No crawler worker has asked for a permit yet"));
        table.getColumns().add(column("Domain", DomainsViewModel.DomainRow::domain, 130));
        table.getColumns().add(column("Rate", DomainsViewModel.DomainRow::rate, 150));
        table.getColumns().add(column("Min delay", DomainsViewModel.DomainRow::minDelay, 110));
        table.getColumns().add(column("Breaker", DomainsViewModel.DomainRow::breaker, 90));
        table.getColumns().add(column("Errors/60 s", DomainsViewModel.DomainRow::errors, 80));
        table.getColumns().add(column("Blocked", DomainsViewModel.DomainRow::blocked, 170));
        table.getColumns().add(column("Last 50 statuses", DomainsViewModel.DomainRow::statuses, 150));
        table.getColumns().add(column("Permits", DomainsViewModel.DomainRow::permits, 140));
        // Every column stays in view: the operator should not have to scroll to see why a row is orange.
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.setRowFactory(t -> new TableRow<>() {
            @Override
            protected void updateItem(DomainsViewModel.DomainRow row, boolean empty) {
                super.updateItem(row, empty);
                getStyleClass().remove("attention");
                if (!empty && row != null && row.needsAttention()) {
                    getStyleClass().add("attention");
                }
            }
        });
        table.getSelectionModel().selectedItemProperty().addListener((o, was, row) -> {
            if (row != null) {
                select(row);
            }
        });
        setCenter(table);
        setRight(actions());
        pump.start();
    }

    private javafx.scene.Node actions() {
        selected.setId("selectedDomain");
        selected.getStyleClass().add("details");
        rate.setId("domainRate");
        rate.setPromptText("e.g. 2.5");
        minDelay.setId("domainMinDelay");
        minDelay.setPromptText("0 removes");
        Button setRate = new Button("Set rate");
        setRate.setId("setDomainRate");
        setRate.setOnAction(e -> act(name -> client.setDomainRate(name, DomainsViewModel.parseRate(rate.getText())),
                "Rate set"));
        Button setDelay = new Button("Set min delay");
        setDelay.setId("setDomainMinDelay");
        setDelay.setOnAction(e -> act(name -> client.setDomainMinDelay(name,
                DomainsViewModel.parseDelayMillis(minDelay.getText())), "Minimum delay set"));
        Button reset = new Button("Reset learned state");
        reset.setId("resetDomain");
        reset.setOnAction(e -> act(client::resetDomain, "Reset"));
        revive.setId("reviveDomain");
        revive.getStyleClass().add("accent");
        revive.setDisable(true);
        revive.setOnAction(e -> act(client::reviveDomain, "Revived"));
        result.setId("domainActionResult");
        result.setWrapText(true);
        GridPane form = new GridPane();
        form.setHgap(8);
        form.setVgap(8);
        rate.setPrefColumnCount(6);
        minDelay.setPrefColumnCount(6);
        form.addRow(0, new Label("req/s"), rate, setRate);
        form.addRow(1, new Label("seconds"), minDelay, setDelay);
        VBox box = new VBox(12, selected, form, reset, revive, result);
        box.setPadding(new Insets(10));
        box.setPrefWidth(380);
        box.setAlignment(Pos.TOP_LEFT);
        return box;
    }

    private static TableColumn<DomainsViewModel.DomainRow, String> column(String title,
            Function<DomainsViewModel.DomainRow, String> cell, double width) {
        TableColumn<DomainsViewModel.DomainRow, String> column = new TableColumn<>(title);
        column.setCellValueFactory(data -> text(cell.apply(data.getValue())));
        column.setPrefWidth(width);
        return column;
    }

    private static ObservableValue<String> text(String value) {
        return new ReadOnlyStringWrapper(value).getReadOnlyProperty();
    }

    private void show(GovernorSnapshot snapshot) {
        model.update(snapshot);
        if (selectedDomain != null) {
            model.rows().stream().filter(r -> r.domain().equals(selectedDomain)).findFirst().ifPresent(row -> {
                table.getSelectionModel().select(row);
                select(row);
            });
        }
    }

    private void select(DomainsViewModel.DomainRow row) {
        selectedDomain = row.domain();
        selected.setText(row.domain() + "\n" + row.breaker() + " · " + row.rate()
                + (row.blocked().isEmpty() ? "" : "\n" + row.blocked()));
        revive.setDisable(!row.view().givenUp());
    }

    /** Selects a domain by name (for keyboard users and tests). */
    public void select(String domain) {
        model.rows().stream().filter(r -> r.domain().equals(domain)).findFirst().ifPresent(row -> {
            table.getSelectionModel().select(row);
            select(row);
        });
    }

    public DomainsViewModel model() {
        return model;
    }

    private interface DomainAction {
        Object apply(String domain) throws AdminException;
    }

    private void act(DomainAction action, String done) {
        String domain = selectedDomain;
        if (domain == null) {
            result.setText("Select a domain first");
            return;
        }
        CompletableFuture.supplyAsync(() -> {
            try {
                return action.apply(domain);
            } catch (AdminException e) {
                throw new CompletionException(e);
            }
        }).whenComplete((value, failure) -> Platform.runLater(() -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            result.setText(cause == null ? done + ": " + domain : "Failed: " + cause.getMessage());
            pump.refreshSoon();
        }));
    }

    public void close() {
        pump.close();
    }
}
