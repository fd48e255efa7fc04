package io.sluice.console.dashboard;

import io.sluice.console.api.AdminClient;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import javafx.geometry.Insets;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;

/**
 * Edits the policy's limits: each field with its unit and current value; Apply sends the whole policy
 * with the version it was based on, shows the server's errors next to their fields, and explains a
 * conflict with another operator, offering to reload.
 */
final class LimitsForm extends GridPane {
    /** One editable number of the policy. */
    private record Field(String path, String label, String unit, ToIntFunction<Policy> current) {
    }

    private static final List<Field> FIELDS = List.of(
            new Field("hitStack.maxHits", "Hits allowed per window", "hits", p -> p.hitStack().maxHits()),
            new Field("hitStack.windowSeconds", "Hit-stack window", "s", p -> p.hitStack().windowSeconds()),
            new Field("crawlers.perCrawlerSeconds", "Gap per crawler", "s", p -> p.crawlers().perCrawlerSeconds()),
            new Field("crawlers.allCrawlersSeconds", "Gap across crawlers", "s",
                    p -> p.crawlers().allCrawlersSeconds()),
            new Field("load.maxActive", "Upstream requests in flight", "requests", p -> p.load().maxActive()),
            new Field("load.maxWaiting", "Deferred requests waiting", "requests", p -> p.load().maxWaiting()),
            new Field("load.deferMillis", "Deferral wait", "ms", p -> p.load().deferMillis()),
            new Field("perClient.maxConcurrent", "Per-client requests in flight", "requests",
                    p -> p.perClient().maxConcurrent()),
            new Field("refusal.retryAfterSeconds", "Default Retry-After", "s", p -> p.refusal().retryAfterSeconds()));

    private final AdminClient client;
    private final Map<String, TextField> inputs = new LinkedHashMap<>();
    private final Map<String, Label> errors = new LinkedHashMap<>();
    private final Label status = new Label();
    private Policy base;

    LimitsForm(AdminClient client) {
        this.client = client;
        setPadding(new Insets(16));
        setHgap(10);
        setVgap(8);
        int row = 0;
        for (Field field : FIELDS) {
            TextField input = new TextField();
            input.setId(field.path().replace('.', '-'));
            input.setPrefColumnCount(8);
            Label error = new Label();
            error.setId(field.path().replace('.', '-') + "-error");
            error.getStyleClass().add("field-error");
            inputs.put(field.path(), input);
            errors.put(field.path(), error);
            addRow(row++, new Label(field.label()), input, new Label(field.unit()), error);
        }
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
        add(new HBox(8, apply, revert, reload), 1, row++, 3, 1);
        add(status, 0, row, 4, 1);
    }

    void reload() {
        new Thread(() -> {
            try {
                Policy policy = client.policy();
                javafx.application.Platform.runLater(() -> {
                    show(policy);
                    status.setText("Policy version " + policy.version());
                });
            } catch (io.sluice.console.api.AdminException e) {
                javafx.application.Platform.runLater(() -> status.setText("Cannot load the policy: " + e.getMessage()));
            }
        }, "sluice-console-policy").start();
    }

    private void show(Policy policy) {
        if (policy == null) {
            return;
        }
        base = policy;
        for (Field field : FIELDS) {
            inputs.get(field.path()).setText(Integer.toString(field.current().applyAsInt(policy)));
            errors.get(field.path()).setText("");
        }
    }

    private void apply() {
        if (base == null) {
            return;
        }
        errors.values().forEach(l -> l.setText(""));
        Map<String, Integer> values = new LinkedHashMap<>();
        boolean bad = false;
        for (Field field : FIELDS) {
            try {
                values.put(field.path(), Integer.parseInt(inputs.get(field.path()).getText().trim()));
            } catch (NumberFormatException e) {
                errors.get(field.path()).setText("a whole number, please");
                bad = true;
            }
        }
        if (bad) {
            return;
        }
        Policy proposed = base
                .withHitStack(new Policy.HitStack(values.get("hitStack.windowSeconds"), values.get("hitStack.maxHits")))
                .withCrawlers(new Policy.Crawlers(values.get("crawlers.perCrawlerSeconds"),
                        values.get("crawlers.allCrawlersSeconds"), base.crawlers().verifySearchEngines()))
                .withLoad(new Policy.Load(values.get("load.maxActive"), values.get("load.maxWaiting"),
                        values.get("load.deferMillis")))
                .withPerClient(new Policy.PerClient(values.get("perClient.maxConcurrent")))
                .withRefusal(new Policy.Refusal(values.get("refusal.retryAfterSeconds"), base.refusal().infoUrl()));
        long basedOn = base.version();
        new Thread(() -> {
            try {
                AdminClient.PolicyUpdate result = client.putPolicy(proposed, basedOn);
                javafx.application.Platform.runLater(() -> showResult(result));
            } catch (io.sluice.console.api.AdminException e) {
                javafx.application.Platform.runLater(() -> status.setText("Not applied: " + e.getMessage()));
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
            for (FieldError error : result.errors()) {
                Label label = errors.get(error.field());
                if (label != null) {
                    label.setText(error.message());
                }
            }
            status.setText("Not applied: " + result.errors().size() + " field(s) need fixing");
        }
    }
}
