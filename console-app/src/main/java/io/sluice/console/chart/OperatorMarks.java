package io.sluice.console.chart;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.console.api.AdminException;
import io.sluice.console.ui.UiExecutor;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The operator's actions worth a mark on a chart, read from the audit whenever the policy's version changes
 * (bans, unbans, pauses and edits all change it, so the audit is read only then), for a room's charts to
 * {@link ChartMarks#follow follow}. What the live room and the fleet room mark their charts with; no toolkit
 * needed, so it is tested without one.
 */
public final class OperatorMarks {
    /** Audit entries read: more than the charts' two minutes of actions would ever hold. */
    static final int READ = 100;

    /** How the audit is read, newest first: {@code AdminClient::audit}. */
    @FunctionalInterface
    public interface AuditSource {
        List<JsonNode> read(int limit) throws AdminException;
    }

    private final UiExecutor ui;
    private final AuditSource audit;
    private final ObservableList<AuditMark> marks = FXCollections.observableArrayList();
    private final ObservableList<AuditMark> marksView = FXCollections.unmodifiableObservableList(marks);
    /** The policy version the marks were read for; UI thread only. */
    private long readFor = -1;

    public OperatorMarks(UiExecutor ui, AuditSource audit) {
        this.ui = ui;
        this.audit = audit;
    }

    /** The marks, oldest first; changed on the UI thread. */
    public ObservableList<AuditMark> marks() {
        return marksView;
    }

    /** The policy in force is at {@code version} (from a snapshot or the fleet): reads the audit if it changed. */
    public void policyVersion(long version) {
        if (version != readFor) {
            readFor = version;
            refresh();
        }
    }

    /** Reads the audit now. */
    public void refresh() {
        ui.run(() -> audit.read(READ), this::show, (AdminException e) -> {
            // The marks are a help, not the data: the next policy change tries again.
            readFor = -1;
        });
    }

    private void show(List<JsonNode> entries) {
        marks.setAll(entries.stream().map(AuditMark::of).flatMap(Optional::stream)
                .sorted(Comparator.comparingLong(AuditMark::seq)).toList());
    }
}
