package io.sluice.console.limits;

import io.sluice.console.ui.Command;
import io.sluice.console.ui.Fxml;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.whatif.WhatIfView;
import java.util.List;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.fxml.FXML;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The limits room's view: {@code LimitsView.fxml} is the shell (the form's box, the Apply bar, a slot for the
 * what-if panel); the form inside is generated from the {@link LimitsViewModel}'s fields and tables, each input
 * bound to its text and followed by its error. Beside it, the what-if panel ({@link WhatIfView}) previews the
 * edited form on live traffic; leaving the room removes the preview.
 */
public final class LimitsView implements Room {
    private final LimitsViewModel model;
    private final Parent root;
    private final WhatIfView preview;

    @FXML
    private VBox form;
    @FXML
    private VBox previewSlot;
    @FXML
    private Button applyLimits;
    @FXML
    private Button revertLimits;
    @FXML
    private Button reloadLimits;
    @FXML
    private Label limitsStatus;

    public LimitsView(Session session) {
        this.model = new LimitsViewModel(session);
        this.root = Fxml.load(this);
        this.preview = new WhatIfView(session, () -> model.candidate().policy());
        setPreview(preview.view());
    }

    @FXML
    private void initialize() {
        String group = null;
        GridPane grid = null;
        for (LimitsViewModel.Item item : model.items()) {
            if (!item.group().equals(group)) {
                group = item.group();
                Label heading = new Label(group);
                heading.getStyleClass().add("form-heading");
                form.getChildren().add(heading);
                grid = null;
            }
            if (item instanceof LimitsViewModel.FieldInput field) {
                if (grid == null) {
                    grid = new GridPane();
                    grid.getStyleClass().add("form-grid");
                    form.getChildren().add(grid);
                }
                addField(grid, field);
            } else if (item instanceof LimitsViewModel.TableInput table) {
                form.getChildren().add(table(table));
                grid = null;
            }
        }
        bind(applyLimits, model.apply());
        bind(revertLimits, model.revert());
        bind(reloadLimits, model.reload());
        limitsStatus.textProperty().bind(model.statusProperty());
        previewSlot.managedProperty().bind(previewSlot.visibleProperty());
        previewSlot.setVisible(false);
    }

    private static void bind(Button button, Command command) {
        button.disableProperty().bind(command.executableProperty().not());
        button.setOnAction(e -> command.execute());
    }

    private static void addField(GridPane grid, LimitsViewModel.FieldInput input) {
        PolicyFormModel.Field field = input.field();
        Node control = input(field.kind(), input.textProperty(), field.id());
        Label error = error(field.id() + "-error", input.errorProperty());
        grid.addRow(grid.getRowCount(), new Label(field.label()), control, new Label(field.unit()), error);
    }

    /** An input for a field or cell of {@code kind}, bound both ways to {@code text}. */
    private static Node input(PolicyFormModel.Kind kind, StringProperty text, String id) {
        Node control = switch (kind) {
            case BOOLEAN -> {
                CheckBox box = new CheckBox();
                box.setSelected(Boolean.parseBoolean(text.get()));
                box.selectedProperty().addListener((o, was, now) -> text.set(Boolean.toString(now)));
                text.addListener((o, was, now) -> box.setSelected(Boolean.parseBoolean(now)));
                yield box;
            }
            case ALLOW -> {
                TextArea area = new TextArea();
                area.setPrefRowCount(4);
                area.setPrefColumnCount(40);
                area.textProperty().bindBidirectional(text);
                yield area;
            }
            default -> {
                TextField field = new TextField();
                field.setPrefColumnCount(kind == PolicyFormModel.Kind.LIST || kind == PolicyFormModel.Kind.TEXT
                        ? 30 : 10);
                field.textProperty().bindBidirectional(text);
                yield field;
            }
        };
        control.setId(id);
        return control;
    }

    private static Label error(String id, ObservableValue<String> message) {
        Label error = new Label();
        error.setId(id);
        error.getStyleClass().add("field-error");
        error.setWrapText(true);
        error.textProperty().bind(message);
        return error;
    }

    /** A table: a heading per column, a row of inputs (each with its error under it) per element, Add. */
    private Node table(LimitsViewModel.TableInput table) {
        PolicyFormModel.Table definition = table.table();
        GridPane grid = new GridPane();
        grid.getStyleClass().addAll("form-grid", "form-table");
        grid.setId(definition.path() + "-table");
        Runnable layout = () -> layoutTable(grid, table);
        table.rows().addListener((ListChangeListener<LimitsViewModel.RowInput>) c -> layout.run());
        layout.run();
        Button add = new Button("Add");
        add.setId(definition.path() + "-add");
        add.setOnAction(e -> table.addRow());
        Label help = new Label(definition.help());
        help.getStyleClass().add("form-help");
        VBox box = new VBox(4, help, grid, new HBox(8, add, error(definition.path() + "-error",
                table.errorProperty())));
        box.getStyleClass().add("form-table-box");
        return box;
    }

    private static void layoutTable(GridPane grid, LimitsViewModel.TableInput table) {
        PolicyFormModel.Table definition = table.table();
        grid.getChildren().clear();
        int column = 0;
        for (PolicyFormModel.Column c : definition.columns()) {
            // The unit is each cell's prompt and the heading's tooltip: the headings stay short enough to read.
            Label heading = new Label(c.label());
            heading.getStyleClass().add("column-heading");
            if (!c.unit().isEmpty()) {
                heading.setTooltip(new Tooltip(c.unit()));
            }
            grid.add(heading, column++, 0);
        }
        int row = 1;
        for (LimitsViewModel.RowInput input : table.rows()) {
            int index = row - 1;
            String prefix = definition.path() + "-" + index + "-";
            column = 0;
            for (PolicyFormModel.Column c : definition.columns()) {
                Node control;
                if (c.kind() == PolicyFormModel.Kind.CHOICE) {
                    ChoiceBox<String> choice = new ChoiceBox<>(FXCollections.observableArrayList(c.choices()));
                    choice.valueProperty().bindBidirectional(input.cell(c.name()));
                    choice.setId(prefix + c.name());
                    control = choice;
                } else {
                    control = input(c.kind(), input.cell(c.name()), prefix + c.name());
                    if (control instanceof TextField text) {
                        text.setPrefColumnCount(c.kind() == PolicyFormModel.Kind.TEXT ? 14 : 6);
                        text.setPromptText(c.unit());
                    }
                }
                grid.add(new VBox(2, control, error(prefix + c.name() + "-error", input.errorProperty(c.name()))),
                        column++, row);
            }
            Button up = new Button("↑");
            up.setId(prefix + "up");
            up.setTooltip(new Tooltip("Move up: the first route that matches decides"));
            up.setDisable(index == 0);
            up.setOnAction(e -> table.moveUp(input));
            Button remove = new Button("✕");
            remove.setId(prefix + "remove");
            remove.setTooltip(new Tooltip("Remove"));
            remove.setOnAction(e -> table.remove(input));
            grid.add(new HBox(4, up, remove, error(prefix + "error", input.rowErrorProperty())), column, row);
            row++;
        }
    }

    /**
     * Puts {@code panel} in the slot beside the form (the what-if preview); null empties it. The panel follows
     * the form through the model ({@link LimitsViewModel#candidate()}, {@link LimitsViewModel#editsProperty()}).
     */
    public void setPreview(Node panel) {
        previewSlot.getChildren().setAll(panel == null ? List.of() : List.of(panel));
        previewSlot.setVisible(panel != null);
    }

    public LimitsViewModel model() {
        return model;
    }

    @Override
    public void shown() {
        model.shown(true);
        model.reload().execute();
    }

    @Override
    public void hidden() {
        preview.hidden(); // leaving the form: the shadow goes with it
        model.shown(false);
    }

    @Override
    public void close() {
        preview.close();
    }

    @Override
    public String id() {
        return "limits";
    }

    @Override
    public String title() {
        return "Limits";
    }

    @Override
    public Parent view() {
        return root;
    }
}
