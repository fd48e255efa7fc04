package io.sluice.console.live;

import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.engine.telemetry.AsnRow;
import io.sluice.engine.telemetry.AsnTableStats;
import io.sluice.engine.telemetry.Snapshot;
import java.util.List;
import java.util.Locale;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The networks tab's second table: the autonomous systems of the last minute, when the server has an IP-to-ASN file
 * ({@code --asn-file}), as the snapshot ranks them (the costliest first), each the sum of its networks' rows; the
 * selected one's networks below, and its one action: have the browser check ask it whenever the check is not off (the
 * policy's {@code alwaysChallengeAsns}, through {@code POST /api/v1/browser-check}, audited), undone from the same
 * place. Without a file there is nothing to show and the table is not there at all. Fed by the session's snapshots;
 * no toolkit needed.
 */
public final class AsnViewModel {
    /** The most rows shown. */
    static final int SHOWN = 50;
    private static final String NOTHING_SELECTED = "Select an autonomous system to see its networks";

    /** A row as the table shows it, and whether the browser check asks its AS whenever it is not off. */
    public record Row(AsnRow system, boolean challenged) {
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

        public String status() {
            return challenged ? "CHECKED" : "";
        }
    }

    private final ReadOnlyBooleanWrapper available = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<List<Row>> rows = new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyObjectWrapper<Row> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper(NOTHING_SELECTED);
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final Session session;
    private final Command challenge;
    private final Command stopChallenging;

    public AsnViewModel(Session session) {
        this.session = session;
        BooleanBinding unchecked = Bindings.createBooleanBinding(() -> selected.get() != null
                && !selected.get().challenged(), selected);
        BooleanBinding checked = Bindings.createBooleanBinding(() -> selected.get() != null
                && selected.get().challenged(), selected);
        this.challenge = challengeCommand(unchecked, true);
        this.stopChallenging = challengeCommand(checked, false);
        session.snapshots().subscribe(this::apply, failure -> { });
    }

    /** The browser check asks the selected AS's browser claims whenever it is not off (or stops): one action. */
    private Command challengeCommand(BooleanBinding enabled, boolean asking) {
        return Command.admin(session.ui(), enabled, () -> {
            long asn = selected.get().system().asn();
            return () -> {
                session.client().challengeAsn(asn, asking);
                return asn;
            };
        }, asn -> {
            actionResult.set((asking ? "The browser check asks AS" : "The browser check no longer always asks AS")
                    + asn);
            session.snapshots().refreshSoon();
        }, why -> actionResult.set("Failed: " + why.getMessage()));
    }

    /**
     * A new snapshot: the rows, and the selection kept on the same AS, even when it is no longer among the rows (as
     * the networks view keeps its network: the operator may still act on it).
     */
    public void apply(Snapshot latest) {
        AsnTableStats table = latest.asnTable();
        available.set(table != null);
        title.set(table == null ? "" : String.format(Locale.ROOT, "Autonomous systems, last minute (%s: %,d "
                + "ranges, %,d systems)", table.source(), table.ipv4Ranges() + table.ipv6Ranges(), table.systems()));
        List<Long> asked = latest.browserCheck() == null ? List.of() : latest.browserCheck().alwaysChallengeAsns();
        List<Row> shown = latest.autonomousSystems().stream().limit(SHOWN)
                .map(system -> new Row(system, asked.contains(system.asn()))).toList();
        rows.set(shown);
        Row current = selected.get();
        Row again = current == null ? null : shown.stream()
                .filter(row -> row.system().asn() == current.system().asn()).findFirst()
                .orElse(new Row(current.system(), asked.contains(current.system().asn())));
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

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    /** The browser check asks the selected AS whenever it is not off. */
    public Command challenge() {
        return challenge;
    }

    /** Undoes {@link #challenge}. */
    public Command stopChallenging() {
        return stopChallenging;
    }
}
