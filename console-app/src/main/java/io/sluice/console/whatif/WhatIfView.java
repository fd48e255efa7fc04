package io.sluice.console.whatif;

import io.sluice.engine.policy.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.fxml.FXML;
import javafx.fxml.FXMLLoader;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.layout.VBox;
import javafx.util.Duration;

/**
 * The what-if panel ({@code WhatIf.fxml}) the limits room embeds: binds {@link WhatIfViewModel} and polls its
 * report once a second while a preview runs. Preview asks the room for the edited policy.
 */
public final class WhatIfView {
    /** How often a running preview's report is read. */
    static final Duration POLL = Duration.seconds(1);

    private final WhatIfViewModel model;
    private final Supplier<Policy> candidate;
    private final Timeline poll;

    @FXML private VBox root;
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

    private WhatIfView(WhatIfViewModel model, Supplier<Policy> candidate) {
        this.model = model;
        this.candidate = candidate;
        this.poll = new Timeline(new KeyFrame(POLL, event -> model.refresh()));
        poll.setCycleCount(Timeline.INDEFINITE);
    }

    /**
     * Loads the panel; call on the FX thread.
     *
     * @param candidate the limits form's edited policy, or null when the form has errors to fix first
     */
    public static WhatIfView load(WhatIfViewModel model, Supplier<Policy> candidate) {
        FXMLLoader loader = new FXMLLoader(WhatIfView.class.getResource("WhatIf.fxml"));
        WhatIfView view = new WhatIfView(model, candidate);
        loader.setController(view);
        try {
            loader.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load WhatIf.fxml", e);
        }
        view.poll.play();
        return view;
    }

    /** The panel, to embed in the limits room. */
    public Parent root() {
        return root;
    }

    /** Leaving the limits room: stops polling and removes the shadow. */
    public void dispose() {
        poll.stop();
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
