package io.sluice.console.limits;

import io.sluice.console.api.AdminClient;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The limits form: every field of the policy ({@link PolicyFormModel}) as text, every list of records (routes,
 * escalation rules) as rows, each input with its error beside it. Apply sends the whole policy with the version
 * it was based on (through a {@link PolicyApplier}) and puts the server's errors on their fields and cells; a
 * conflict with another operator is explained. No toolkit needed.
 *
 * <p>For a what-if preview: {@link #candidate()} is the form as a policy now, {@link #editsProperty()} counts
 * the operator's edits, {@link #shownProperty()} says whether the operator is in the room, and
 * {@link #setApplier} changes what Apply does.
 */
public final class LimitsViewModel {
    private final Session session;
    private final List<Item> items = new ArrayList<>();
    private final Map<String, FieldInput> fields = new LinkedHashMap<>();
    private final Map<String, TableInput> tables = new LinkedHashMap<>();
    private final ReadOnlyObjectWrapper<Policy> base = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyLongWrapper edits = new ReadOnlyLongWrapper();
    private final ReadOnlyBooleanWrapper shown = new ReadOnlyBooleanWrapper();
    private final Command reload;
    private final Command apply;
    private final Command revert;
    private PolicyApplier applier;
    /** True while the form is being filled from a policy: those are not the operator's edits. */
    private boolean filling;

    /** An entry of the form, in order: a field or a table. */
    public sealed interface Item permits FieldInput, TableInput {
        String group();
    }

    /** One field: its text, bound to an input, and the error shown beside it. */
    public final class FieldInput implements Item {
        private final PolicyFormModel.Field field;
        private final StringProperty text = new SimpleStringProperty("");
        private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");

        FieldInput(PolicyFormModel.Field field) {
            this.field = field;
            text.addListener((o, was, now) -> edited());
        }

        public PolicyFormModel.Field field() {
            return field;
        }

        @Override
        public String group() {
            return field.group();
        }

        public StringProperty textProperty() {
            return text;
        }

        public ReadOnlyStringProperty errorProperty() {
            return error.getReadOnlyProperty();
        }
    }

    /** One list of records: its rows, and an error about the list as a whole. */
    public final class TableInput implements Item {
        private final PolicyFormModel.Table table;
        private final ObservableList<RowInput> rows = FXCollections.observableArrayList();
        private final ObservableList<RowInput> rowsView = FXCollections.unmodifiableObservableList(rows);
        private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");

        TableInput(PolicyFormModel.Table table) {
            this.table = table;
        }

        public PolicyFormModel.Table table() {
            return table;
        }

        @Override
        public String group() {
            return table.group();
        }

        public ObservableList<RowInput> rows() {
            return rowsView;
        }

        public ReadOnlyStringProperty errorProperty() {
            return error.getReadOnlyProperty();
        }

        /** Adds an empty row at the end (a new route matches nothing until its path is filled in). */
        public void addRow() {
            rows.add(new RowInput(this, table.newRow()));
            edited();
        }

        public void remove(RowInput row) {
            rows.remove(row);
            edited();
        }

        /** Moves a row up: order matters, since the first route that matches decides. */
        public void moveUp(RowInput row) {
            int index = rows.indexOf(row);
            if (index > 0) {
                rows.remove(index);
                rows.add(index - 1, row);
                edited();
            }
        }

        void fill(List<Map<String, String>> texts) {
            rows.setAll(texts.stream().map(t -> new RowInput(this, t)).toList());
            error.set("");
        }

        List<Map<String, String>> texts() {
            return rows.stream().map(RowInput::texts).toList();
        }
    }

    /** One row of a table: a text and an error per column, and an error about the row as a whole. */
    public final class RowInput {
        private final TableInput table;
        private final Map<String, StringProperty> cells = new LinkedHashMap<>();
        private final Map<String, ReadOnlyStringWrapper> errors = new LinkedHashMap<>();
        private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");

        RowInput(TableInput table, Map<String, String> texts) {
            this.table = table;
            for (PolicyFormModel.Column column : table.table().columns()) {
                StringProperty cell = new SimpleStringProperty(texts.getOrDefault(column.name(), ""));
                cell.addListener((o, was, now) -> edited());
                cells.put(column.name(), cell);
                errors.put(column.name(), new ReadOnlyStringWrapper(""));
            }
        }

        public StringProperty cell(String column) {
            return Objects.requireNonNull(cells.get(column), column);
        }

        public ReadOnlyStringProperty errorProperty(String column) {
            return errors.get(column).getReadOnlyProperty();
        }

        public ReadOnlyStringProperty rowErrorProperty() {
            return error.getReadOnlyProperty();
        }

        /** This row's index in its table now. */
        public int index() {
            return table.rows.indexOf(this);
        }

        Map<String, String> texts() {
            Map<String, String> texts = new LinkedHashMap<>();
            cells.forEach((name, cell) -> texts.put(name, cell.get()));
            return texts;
        }

        void clearErrors() {
            errors.values().forEach(e -> e.set(""));
            error.set("");
        }
    }

    public LimitsViewModel(Session session) {
        this.session = session;
        this.applier = session.client()::putPolicy;
        List<PolicyFormModel.Table> pending = new ArrayList<>(PolicyFormModel.tables());
        for (PolicyFormModel.Field field : PolicyFormModel.all()) {
            // A table is shown after the group it belongs beside (routes after the per-address limits).
            pending.removeIf(table -> {
                boolean before = table.group().equals("Routes") && field.group().startsWith("Crawlers")
                        || table.group().equals("Escalation") && field.group().equals("Refusal");
                if (before) {
                    addTable(table);
                }
                return before;
            });
            FieldInput input = new FieldInput(field);
            fields.put(field.path(), input);
            items.add(input);
        }
        pending.forEach(this::addTable);
        var loaded = base.isNotNull();
        this.reload = Command.admin(session.ui(), new ReadOnlyBooleanWrapper(true), () -> session.client()::policy,
                policy -> {
                    fill(policy);
                    status.set("Policy version " + policy.version());
                }, why -> status.set("Cannot load the policy: " + why.getMessage()));
        this.apply = Command.admin(session.ui(), loaded, this::prepareApply, this::applied,
                why -> status.set("Not applied: " + why.getMessage()));
        this.revert = Command.local(loaded, () -> {
            fill(base.get());
            status.set("Reverted to policy version " + base.get().version());
        });
    }

    private void addTable(PolicyFormModel.Table table) {
        TableInput input = new TableInput(table);
        tables.put(table.path(), input);
        items.add(input);
    }

    private void edited() {
        if (!filling) {
            edits.set(edits.get() + 1);
        }
    }

    private void fill(Policy policy) {
        filling = true;
        try {
            base.set(policy);
            PolicyFormModel.texts(policy).forEach((path, text) -> fields.get(path).text.set(text));
            PolicyFormModel.rows(policy).forEach((path, rows) -> tables.get(path).fill(rows));
            clearErrors();
        } finally {
            filling = false;
        }
    }

    /** The form as a policy now (based on the loaded one), or the fields and cells whose text is unreadable. */
    public PolicyFormModel.Built candidate() {
        Policy loaded = base.get();
        if (loaded == null) {
            return new PolicyFormModel.Built(null, List.of(new FieldError("", "the policy is not loaded yet")));
        }
        Map<String, String> texts = new LinkedHashMap<>();
        fields.forEach((path, input) -> texts.put(path, input.text.get()));
        Map<String, List<Map<String, String>>> rows = new LinkedHashMap<>();
        tables.forEach((path, table) -> rows.put(path, table.texts()));
        return PolicyFormModel.build(loaded, texts, rows);
    }

    private UiExecutor.Work<AdminClient.PolicyUpdate> prepareApply() {
        clearErrors();
        PolicyFormModel.Built built = candidate();
        if (built.policy() == null) {
            showErrors(built.errors());
            throw new IllegalArgumentException(built.errors().size() + " field(s) need fixing");
        }
        long basedOn = base.get().version();
        PolicyApplier using = applier;
        return () -> using.apply(built.policy(), basedOn);
    }

    private void applied(AdminClient.PolicyUpdate result) {
        if (result.installed() != null) {
            fill(result.installed());
            status.set("Applied: policy version " + result.installed().version());
        } else if (result.conflict()) {
            status.set("Someone else changed the policy since version " + base.get().version()
                    + ". Nothing was applied. Press Reload to see the current limits, then apply again.");
        } else {
            showErrors(result.errors());
            status.set("Not applied: " + result.errors().size() + " field(s) need fixing");
        }
    }

    private void clearErrors() {
        fields.values().forEach(f -> f.error.set(""));
        tables.values().forEach(t -> {
            t.error.set("");
            t.rows.forEach(RowInput::clearErrors);
        });
    }

    /** Puts each error next to its field or cell; one nothing matches is shown in the status. */
    void showErrors(List<FieldError> errors) {
        List<String> unplaced = new ArrayList<>();
        for (FieldError error : errors) {
            if (!place(error)) {
                unplaced.add((error.field().isEmpty() ? "" : error.field() + ": ") + error.message());
            }
        }
        if (!unplaced.isEmpty()) {
            status.set("Not applied: " + String.join("; ", unplaced));
        }
    }

    private boolean place(FieldError error) {
        Optional<PolicyFormModel.Cell> cell = PolicyFormModel.cellFor(error.field());
        if (cell.isPresent()) {
            TableInput table = tables.get(cell.get().table());
            int row = cell.get().row();
            if (row < 0 || row >= table.rows.size()) {
                append(table.error, error.message());
            } else if (cell.get().column() == null) {
                append(table.rows.get(row).error, error.message());
            } else {
                String rest = error.field().substring(error.field().indexOf(cell.get().column())
                        + cell.get().column().length());
                append(table.rows.get(row).errors.get(cell.get().column()),
                        (rest.isEmpty() ? "" : rest.substring(1) + ": ") + error.message());
            }
            return true;
        }
        String path = PolicyFormModel.fieldFor(error.field());
        if (path == null) {
            return false;
        }
        String more = error.field().equals(path) ? "" : error.field().substring(path.length()) + ": ";
        append(fields.get(path).error, more + error.message());
        return true;
    }

    private static void append(ReadOnlyStringWrapper error, String message) {
        error.set(error.get().isEmpty() ? message : error.get() + "; " + message);
    }

    /** The form's fields and tables, in order. */
    public List<Item> items() {
        return List.copyOf(items);
    }

    /** A field by its JSON path. */
    public FieldInput field(String path) {
        return Objects.requireNonNull(fields.get(path), path);
    }

    /** A table by its JSON path ({@code routes}, {@code escalation}). */
    public TableInput table(String path) {
        return Objects.requireNonNull(tables.get(path), path);
    }

    /** The policy the form was filled from: what Apply is based on; null before the first load. */
    public ReadOnlyObjectProperty<Policy> baseProperty() {
        return base.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Goes up by one with every edit the operator makes (not when the form is filled from a policy). */
    public ReadOnlyLongProperty editsProperty() {
        return edits.getReadOnlyProperty();
    }

    /** Whether the operator is in the limits room now. */
    public ReadOnlyBooleanProperty shownProperty() {
        return shown.getReadOnlyProperty();
    }

    void shown(boolean value) {
        shown.set(value);
    }

    /** Changes what Apply does with the edited policy (a what-if preview promotes its shadow instead). */
    public void setApplier(PolicyApplier value) {
        this.applier = Objects.requireNonNull(value);
    }

    public Command reload() {
        return reload;
    }

    public Command apply() {
        return apply;
    }

    public Command revert() {
        return revert;
    }
}
