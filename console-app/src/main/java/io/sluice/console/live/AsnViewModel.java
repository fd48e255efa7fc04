package io.sluice.console.live;

import io.sluice.console.ui.Session;
import io.sluice.engine.telemetry.AsnRow;
import io.sluice.engine.telemetry.AsnTableStats;
import io.sluice.engine.telemetry.Snapshot;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The networks tab's second table: the autonomous systems of the last minute, when the server has an IP-to-ASN file
 * ({@code --asn-file}), as the snapshot ranks them (the costliest first), each the sum of its networks' rows; the
 * selected one's networks below. Without a file there is nothing to show and the table is not there at all. Fed by
 * the session's snapshots; no toolkit needed.
 */
public final class AsnViewModel {
    /** The most rows shown. */
    static final int SHOWN = 50;
    private static final String NOTHING_SELECTED = "Select an autonomous system to see its networks";

    /** A row as the table shows it. */
    public record Row(AsnRow system) {
        /** "AS16509". */
        public String asn() {
            return "AS" + system.asn();
        }

        public String name() {
            return system.description() == null ? "" : system.description();
        }

        /** Its share of the upstream's time, as a percentage. */
        public String share() {
            return String.format(Locale.ROOT, "%.0f %%", system.upstreamShare() * 100);
        }

        /** The upstream's time its requests took over the last minute. */
        public String upstream() {
            return NetworksViewModel.seconds(system.cost().upstreamMicros());
        }
    }

    private final ReadOnlyBooleanWrapper available = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<List<Row>> rows = new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyObjectWrapper<Row> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper(NOTHING_SELECTED);

    public AsnViewModel(Session session) {
        session.snapshots().subscribe(this::apply, failure -> { });
    }

    /** For a test that feeds snapshots itself. */
    AsnViewModel() {
    }

    /** A new snapshot: the rows, and the selection kept on the same AS. */
    public void apply(Snapshot latest) {
        AsnTableStats table = latest.asnTable();
        available.set(table != null);
        title.set(table == null ? "" : String.format(Locale.ROOT, "Autonomous systems, last minute (%s: %,d "
                + "ranges, %,d systems)", table.source(), table.ipv4Ranges() + table.ipv6Ranges(), table.systems()));
        List<Row> shown = latest.autonomousSystems().stream().limit(SHOWN).map(Row::new).toList();
        rows.set(shown);
        Row current = selected.get();
        Row again = current == null ? null : shown.stream()
                .filter(row -> row.system().asn() == current.system().asn()).findFirst().orElse(null);
        select(again);
    }

    /** Selects row {@code index} of the table (out of range: none). */
    public void select(int index) {
        List<Row> shown = rows.get();
        select(index >= 0 && index < shown.size() ? shown.get(index) : null);
    }

    private void select(Row row) {
        selected.set(row);
        details.set(row == null ? NOTHING_SELECTED : describe(row));
    }

    static String describe(Row row) {
        AsnRow system = row.system();
        StringBuilder text = new StringBuilder(row.asn());
        if (!row.name().isEmpty()) {
            text.append(' ').append(row.name());
        }
        text.append(": ").append(counted(system.networks(), "network")).append(", ")
                .append(counted(system.addresses(), "address")).append(", ")
                .append(counted(system.userAgents(), "user agent"));
        if (!system.busiestNetworks().isEmpty()) {
            text.append("; busiest ").append(String.join(", ", system.busiestNetworks()))
                    .append(system.networks() > system.busiestNetworks().size() ? ", …" : "");
        }
        return text.toString();
    }

    /** "1 network", "3 networks", "2 addresses". */
    private static String counted(int count, String noun) {
        return count + " " + (count == 1 ? noun : noun.endsWith("s") ? noun + "es" : noun + "s");
    }

    /** Whether the server has an IP-to-ASN file: without one the table is not shown. */
    public ReadOnlyBooleanProperty availableProperty() {
        return available.getReadOnlyProperty();
    }

    /** The table's heading: the file and its size. */
    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<List<Row>> rowsProperty() {
        return rows.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Row> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty detailsProperty() {
        return details.getReadOnlyProperty();
    }
}
