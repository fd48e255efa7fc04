package io.sluice.console.dashboard;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;

/**
 * Edits every field of the policy ({@link PolicyFormModel}), each with its unit and current value;
 * Apply sends the whole policy with the version it was based on, shows the server's errors next to
 * their fields, and explains a conflict with another operator, offering to reload.
 */
final class LimitsForm extends BorderPane {
    private final AdminClient client;
    private final Map<String, Control> inputs = new LinkedHashMap<>();
    private final Map<String, Label> errors = new LinkedHashMap<>();
    private final Label status = new Label();
    private Policy base;

    LimitsForm(AdminClient client) {
        this.client = client;
        GridPane grid = new GridPane();
        grid.setPadding(new Insets(16));
        grid.setHgap(10);
        grid.setVgap(8);
        int row = 0;
        String group = null;
        for (PolicyFormModel.Field field : PolicyFormModel.all()) {
            if (!field.group().equals(group)) {
                group = field.group();
                Label heading = new Label(group);
                heading.getStyleClass().add("form-heading");
                grid.add(heading, 0, row++, 4, 1);
            }
            Control input = input(field);
            input.setId(field.id());
            Label error = new Label();
            error.setId(field.id() + "-error");
            error.getStyleClass().add("field-error");
            error.setWrapText(true);
            inputs.put(field.path(), input);
            errors.put(field.path(), error);
            grid.addRow(row++, new Label(field.label()), input, new Label(field.unit()), error);
        }
        ScrollPane scroll = new ScrollPane(grid);
        scroll.setFitToWidth(true);
        setCenter(scroll);

        Button apply = new Button("Apply");
        apply.setId("applyLimits");
        apply.setDefaultButton(true);
        apply.setOnAction(e -> apply());
        Button revert = new Button("Revert");
        revert.setId("revertLimits");
        revert.setOnAction(e -> show(base));
        Button reload = new Button("Reload");
        reload.setId("reloadLimits");
        reload.setOnAction(e -> reload());
        status.setId("limitsStatus");
        status.setWrapText(true);
        HBox bar = new HBox(8, apply, revert, reload, status);
        bar.setPadding(new Insets(10, 16, 10, 16));
        setBottom(bar);
    }

    private static Control input(PolicyFormModel.Field field) {
        return switch (field.kind()) {
            case BOOLEAN -> new CheckBox();
            case ALLOW -> {
                TextArea area = new TextArea();
                area.setPrefRowCount(4);
                area.setPrefColumnCount(40);
                yield area;
            }
            default -> {
                TextField text = new TextField();
                text.setPrefColumnCount(field.kind() == PolicyFormModel.Kind.LIST
                        || field.kind() == PolicyFormModel.Kind.TEXT ? 30 : 10);
                yield text;
            }
        };
    }

    void reload() {
        new Thread(() -> {
            try {
                Policy policy = client.policy();
                Platform.runLater(() -> {
                    show(policy);
                    status.setText("Policy version " + policy.version());
                });
            } catch (AdminException e) {
                Platform.runLater(() -> status.setText("Cannot load the policy: " + e.getMessage()));
            }
        }, "sluice-console-policy").start();
    }

    private void show(Policy policy) {
        if (policy == null) {
            return;
        }
        base = policy;
        PolicyFormModel.texts(policy).forEach((path, text) -> {
            Control input = inputs.get(path);
            if (input instanceof CheckBox box) {
                box.setSelected(Boolean.parseBoolean(text));
            } else if (input instanceof TextField field) {
                field.setText(text);
            } else if (input instanceof TextArea area) {
                area.setText(text);
            }
        });
        errors.values().forEach(l -> l.setText(""));
    }

    private Map<String, String> texts() {
        Map<String, String> texts = new LinkedHashMap<>();
        inputs.forEach((path, input) -> texts.put(path, input instanceof CheckBox box
                ? Boolean.toString(box.isSelected())
                : input instanceof TextArea area ? area.getText() : ((TextField) input).getText()));
        return texts;
    }

    private void apply() {
        if (base == null) {
            return;
        }
        errors.values().forEach(l -> l.setText(""));
        PolicyFormModel.Built built = PolicyFormModel.build(base, texts());
        if (built.policy() == null) {
            showErrors(built.errors());
            return;
        }
        long basedOn = base.version();
        new Thread(() -> {
            try {
                AdminClient.PolicyUpdate result = client.putPolicy(built.policy(), basedOn);
                Platform.runLater(() -> showResult(result));
            } catch (AdminException e) {
                Platform.runLater(() -> status.setText("Not applied: " + e.getMessage()));
            }
        }, "sluice-console-apply").start();
    }

    private void showResult(AdminClient.PolicyUpdate result) {
        if (result.installed() != null) {
            show(result.installed());
            status.setText("Applied: policy version " + result.installed().version());
        } else if (result.conflict()) {
            status.setText("Someone else changed the policy since version " + base.version()
                    + ". Nothing was applied. Press Reload to see the current limits, then apply again.");
        } else {
            showErrors(result.errors());
        }
    }

    private void showErrors(java.util.List<FieldError> list) {
        for (FieldError error : list) {
            String field = PolicyFormModel.fieldFor(error.field());
            Label label = field == null ? null : errors.get(field);
            if (label != null) {
                String more = error.field().equals(field) ? "" : error.field().substring(field.length()) + ": ";
                label.setText(label.getText().isEmpty() ? more + error.message()
                        : label.getText() + "; " + more + error.message());
            }
        }
        status.setText("Not applied: " + list.size() + " field(s) need fixing");
    }
}
