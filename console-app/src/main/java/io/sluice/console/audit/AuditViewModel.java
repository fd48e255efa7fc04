package io.sluice.console.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import java.util.List;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/** Who did what, when: the audit's newest entries, and what the selected one changed. No toolkit needed. */
public final class AuditViewModel {
    /** Entries read per refresh. */
    static final int ENTRIES = 200;

    private final ObservableList<JsonNode> entries = FXCollections.observableArrayList();
    private final ObservableList<JsonNode> entriesView = FXCollections.unmodifiableObservableList(entries);
    private final ObjectProperty<JsonNode> selected = new SimpleObjectProperty<>();
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final Command refresh;

    public AuditViewModel(Session session) {
        this.refresh = Command.admin(session.ui(), new SimpleBooleanProperty(true),
                () -> () -> session.client().audit(ENTRIES), this::show,
                why -> status.set("Cannot load: " + why.getMessage()));
        selected.addListener((o, was, entry) -> details.set(entry == null ? "" : AuditText.beforeAfter(entry)));
    }

    private void show(List<JsonNode> newest) {
        entries.setAll(newest);
        status.set(newest.size() + " newest entries");
    }

    /** One line of the list. */
    public static String line(JsonNode entry) {
        return AuditText.line(entry);
    }

    public ObservableList<JsonNode> entries() {
        return entriesView;
    }

    /** The entry whose changes are shown (the list's selection). */
    public ObjectProperty<JsonNode> selectedProperty() {
        return selected;
    }

    public ReadOnlyStringProperty detailsProperty() {
        return details.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** Reads the newest entries again. */
    public Command refresh() {
        return refresh;
    }
}
