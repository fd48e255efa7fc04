package io.sluice.console.whatif;

import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.Policy;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;

/**
 * The what-if panel the limits room embeds beside its form: binds {@code WhatIfView.fxml} to a
 * {@link WhatIfViewModel}, which reads the preview's report through the session's executor while it runs. Loaded
 * like a room's view; the limits room tells it when the room is left ({@link #hidden()}) and closed
 * ({@link #close()}). Preview asks the room for the edited policy.
 */
public final class WhatIfView implements AutoCloseable {
    private final WhatIfViewModel model;
    private final Supplier<Policy> candidate;
    private final Parent root;

    @FXML private Button preview;
    @FXML private Button apply;
    @FXML private Button stop;
    @FXML private Label headline;
    @FXML private Label status;
    @FXML private TableView<WhatIfSummary.RuleRow> rules;
    @FXML private TableColumn<WhatIfSummary.RuleRow, String> ruleColumn;
    @FXML private TableColumn<WhatIfSummary.RuleRow, Long> ruleRefusedColumn;
    @FXML private TableColumn<WhatIfSummary.RuleRow, Long> ruleClientsColumn;
    @FXML private TableView<WhatIfSummary.ClientRow> clients;
    @FXML private TableColumn<WhatIfSummary.ClientRow, String> ipColumn;
    @FXML private TableColumn<WhatIfSummary.ClientRow, String> classColumn;
    @FXML private TableColumn<WhatIfSummary.ClientRow, Long> clientRefusedColumn;
    @FXML private TableColumn<WhatIfSummary.ClientRow, String> clientRulesColumn;
    @FXML private TableColumn<WhatIfSummary.ClientRow, String> agentColumn;

    /** @param candidate the limits form's edited policy, or null when the form has errors to fix first */
    public WhatIfView(Session session, Supplier<Policy> candidate) {
        this(new WhatIfViewModel(session), candidate);
    }

    public WhatIfView(WhatIfViewModel model, Supplier<Policy> candidate) {
        this.model = model;
        this.candidate = candidate;
        this.root = Fxml.load(this);
    }

    /** The panel, to embed in the limits room. */
    public Parent view() {
        return root;
    }

    public WhatIfViewModel model() {
        return model;
    }

    /** The limits room was left: the preview stops and its shadow is removed. */
    public void hidden() {
        model.stop();
    }

    /** The session ends: the shadow is removed, and a preview still being installed is removed when it is. */
    @Override
    public void close() {
        model.dispose();
    }

    @FXML
    private void initialize() {
        apply.disableProperty().bind(model.canApplyProperty().not());
        stop.disableProperty().bind(model.canApplyProperty().not());
        preview.disableProperty().bind(model.phaseProperty().isEqualTo(WhatIfViewModel.Phase.BUSY));
        headline.textProperty().bind(model.headlineProperty());
        model.browsersHitProperty().addListener((property, before, hit) -> {
            headline.getStyleClass().remove("browsers-hit");
            if (hit) {
                headline.getStyleClass().add("browsers-hit");
            }
        });
        status.textProperty().bind(model.statusProperty());

        rules.setItems(model.rules());
        value(ruleColumn, WhatIfSummary.RuleRow::rule);
        value(ruleRefusedColumn, WhatIfSummary.RuleRow::refused);
        value(ruleClientsColumn, WhatIfSummary.RuleRow::clients);

        clients.setItems(model.clients());
        value(ipColumn, WhatIfSummary.ClientRow::ip);
        value(classColumn, row -> row.crawlerName() == null ? row.requestClass().name()
                : row.requestClass().name() + " (" + row.crawlerName() + ")");
        value(clientRefusedColumn, WhatIfSummary.ClientRow::refused);
        value(clientRulesColumn, WhatIfSummary.ClientRow::rules);
        value(agentColumn, WhatIfSummary.ClientRow::userAgent);
        clients.setRowFactory(table -> new TableRow<>() {
            @Override
            protected void updateItem(WhatIfSummary.ClientRow row, boolean empty) {
                super.updateItem(row, empty);
                getStyleClass().remove("browser");
                if (!empty && row != null && row.browser()) {
                    getStyleClass().add("browser");
                }
            }
        });
    }

    @FXML
    private void preview() {
        Policy edited = candidate.get();
        if (edited != null) {
            model.preview(edited);
        }
    }

    @FXML
    private void apply() {
        model.apply();
    }

    @FXML
    private void stop() {
        model.stop();
    }

    private static <S, T> void value(TableColumn<S, T> column, Function<S, T> value) {
        column.setCellValueFactory(cell -> new ReadOnlyObjectWrapper<>(value.apply(cell.getValue())));
    }
}
