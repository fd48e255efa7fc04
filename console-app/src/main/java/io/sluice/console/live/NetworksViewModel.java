package io.sluice.console.live;

import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.telemetry.NetworkFunnel;
import io.sluice.engine.telemetry.NetworkRow;
import io.sluice.engine.telemetry.Snapshot;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The live room's networks view: the networks (IPv4 /24, IPv6 /48) of the last minute ranked by what they cost the
 * upstream, by hits or by refusals, each with its browser-check funnel (asked, passed, served on a pass), with the
 * selected one's addresses and user agents, and its one action: ban the
 * network for a duration (a CIDR ban through {@code POST /api/v1/bans}), undone from the same place
 * ({@code DELETE /api/v1/bans/{id}}). The server audits both, and the live room's rate chart marks them as it marks
 * every operator action. Fed by the session's snapshots; no toolkit needed.
 */
public final class NetworksViewModel {
    /** The most rows shown. */
    static final int SHOWN = 50;
    private static final String NOTHING_SELECTED = "Select a network";

    /** What the rows are ranked by. */
    public enum Ranking {
        COST("cost", row -> row.cost() == null ? 0 : row.cost().upstreamMicros()),
        HITS("hits", NetworkRow::hits),
        REFUSALS("refusals", NetworkRow::refused);

        private final String label;
        private final ToLongFunction<NetworkRow> score;

        Ranking(String label, ToLongFunction<NetworkRow> score) {
            this.label = label;
            this.score = score;
        }

        public String label() {
            return label;
        }

        long score(NetworkRow row) {
            return score.applyAsLong(row);
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * A row as the table shows it: the network, the ban of it in force (null when none), and whether the browser
     * check asks it whenever the check is not off.
     */
    public record Row(NetworkRow network, Ban ban, boolean challenged) {
        public String cidr() {
            return network.network();
        }

        /** Its share of the upstream's time, as a percentage. */
        public String share() {
            return String.format(Locale.ROOT, "%.0f %%", network.upstreamShare() * 100);
        }

        /** The upstream's time its requests took over the last minute. */
        public String upstream() {
            return seconds(network.cost() == null ? 0 : network.cost().upstreamMicros());
        }

        /**
         * The browser check's funnel over the last minute, compact: pages asked (the interstitial), passes earned (by
         * the proof-of-work or the no-JavaScript path), requests served on a pass; "-" for a network it never met.
         */
        public String funnel() {
            NetworkFunnel steps = network.funnel();
            if (steps == null || steps.equals(NetworkFunnel.NONE)) {
                return "-";
            }
            return steps.challenged() + " / " + (steps.passesEarned() + steps.weakPassesEarned()) + " / "
                    + steps.servedOnPass();
        }

        public String status() {
            return ban != null ? "BANNED" : challenged ? "CHECKED" : "";
        }
    }

    private final Session session;
    private final ReadOnlyObjectWrapper<Snapshot> snapshot = new ReadOnlyObjectWrapper<>();
    private final ObjectProperty<Ranking> ranking = new SimpleObjectProperty<>(Ranking.COST);
    private final ReadOnlyObjectWrapper<List<Row>> rows = new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyObjectWrapper<Row> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyIntegerWrapper selectedIndex = new ReadOnlyIntegerWrapper(-1);
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper(NOTHING_SELECTED);
    private final ReadOnlyStringWrapper table = new ReadOnlyStringWrapper("networks tracked -");
    private final ObjectProperty<BanDuration> banDuration = new SimpleObjectProperty<>(BanDuration.ONE_HOUR);
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final Command banNetwork;
    private final Command undoBan;
    private final Command challenge;
    private final Command stopChallenging;

    public NetworksViewModel(Session session) {
        this.session = session;
        BooleanBinding selectable = Bindings.createBooleanBinding(() -> selected.get() != null
                && selected.get().ban() == null, selected);
        BooleanBinding banned = Bindings.createBooleanBinding(() -> selected.get() != null
                && selected.get().ban() != null, selected);
        this.banNetwork = Command.admin(session.ui(), selectable, () -> {
            String cidr = selected.get().cidr();
            Long seconds = banDuration.get() == null ? BanDuration.ONE_HOUR.seconds() : banDuration.get().seconds();
            return () -> {
                session.client().ban("ip", cidr, "network banned from the console's networks view", seconds);
                return cidr;
            };
        }, cidr -> done("Banned network " + cidr), why -> actionResult.set("Failed: " + why.getMessage()));
        this.undoBan = Command.admin(session.ui(), banned, () -> {
            Ban ban = selected.get().ban();
            return () -> {
                session.client().unban(ban.id());
                return ban.value();
            };
        }, cidr -> done("Lifted the ban of " + cidr), why -> actionResult.set("Failed: " + why.getMessage()));
        BooleanBinding unchecked = Bindings.createBooleanBinding(() -> selected.get() != null
                && !selected.get().challenged(), selected);
        BooleanBinding checked = Bindings.createBooleanBinding(() -> selected.get() != null
                && selected.get().challenged(), selected);
        this.challenge = challengeCommand(unchecked, true);
        this.stopChallenging = challengeCommand(checked, false);
        // "Budget it" (a budget of its own for one network) is not built: the policy has one budget per network size.
        ranking.addListener((o, was, now) -> refresh());
        session.snapshots().subscribe(this::apply, failure -> { });
    }

    /** The browser check asks the selected network's browser claims (or stops): one audited action. */
    private Command challengeCommand(BooleanBinding enabled, boolean asking) {
        return Command.admin(session.ui(), enabled, () -> {
            String cidr = selected.get().cidr();
            return () -> {
                session.client().challengeNetwork(cidr, asking);
                return cidr;
            };
        }, cidr -> done((asking ? "The browser check asks " : "The browser check no longer always asks ") + cidr),
                why -> actionResult.set("Failed: " + why.getMessage()));
    }

    private void done(String result) {
        actionResult.set(result);
        session.snapshots().refreshSoon();
    }

    /** A new snapshot: the rows, ranked, and the selection kept on the same network. */
    public void apply(Snapshot latest) {
        snapshot.set(latest);
        table.set(latest.networkTable() == null ? "networks tracked -"
                : "networks tracked " + latest.networkTable().tracked() + " / " + latest.networkTable().capacity()
                        + "   evicted " + latest.networkTable().evicted());
        refresh();
    }

    private void refresh() {
        Snapshot latest = snapshot.get();
        if (latest == null) {
            return;
        }
        Ranking by = ranking.get() == null ? Ranking.COST : ranking.get();
        List<Row> ranked = latest.networks().stream()
                .sorted(Comparator.comparingLong(by::score).reversed().thenComparing(NetworkRow::network))
                .limit(SHOWN)
                .map(network -> new Row(network, banOf(latest, network.network()),
                        challenged(latest, network.network())))
                .toList();
        rows.set(ranked);
        Row current = selected.get();
        int index = current == null ? -1 : indexOf(ranked, current.cidr());
        select(index >= 0 ? ranked.get(index) : current == null ? null : new Row(current.network(),
                banOf(latest, current.cidr()), challenged(latest, current.cidr())), index);
    }

    /** Whether the browser check asks exactly this network whenever it is not off. */
    static boolean challenged(Snapshot latest, String cidr) {
        return latest.browserCheck() != null && latest.browserCheck().alwaysChallenge().contains(cidr);
    }

    /** The ban of exactly this network in force, or null. */
    static Ban banOf(Snapshot latest, String cidr) {
        return latest.bans().stream().filter(ban -> ban.type() == BanType.IP && ban.value().equals(cidr))
                .findFirst().orElse(null);
    }

    /** Selects row {@code index} of the table. */
    public void select(int index) {
        List<Row> shown = rows.get();
        if (index >= 0 && index < shown.size()) {
            select(shown.get(index), index);
        }
    }

    private void select(Row row, int index) {
        selected.set(row);
        selectedIndex.set(index);
        details.set(row == null ? NOTHING_SELECTED : describe(row));
    }

    private static int indexOf(List<Row> rows, String cidr) {
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).cidr().equals(cidr)) {
                return i;
            }
        }
        return -1;
    }

    static String describe(Row row) {
        NetworkRow network = row.network();
        StringBuilder text = new StringBuilder("Network: ").append(network.network());
        if (row.ban() != null) {
            text.append("  (banned").append(row.ban().expiresAt() == null ? ""
                    : " until " + row.ban().expiresAt()).append(')');
        }
        text.append("\nUpstream time, last minute: ").append(row.upstream()).append(" (").append(row.share())
                .append(" of all)");
        if (network.cost() != null) {
            text.append("\nRequests ").append(network.cost().requests()).append(", bytes in ")
                    .append(network.cost().bytesIn()).append(", out ").append(network.cost().bytesOut());
        }
        text.append("\nHits ").append(network.hits()).append(", refused ").append(network.refused())
                .append("\nAddresses ").append(network.addresses()).append(": ")
                .append(String.join(", ", network.busiestAddresses()))
                .append(network.addresses() > network.busiestAddresses().size() ? ", …" : "")
                .append(funnelText(network.funnel()))
                .append("\nUser agents ").append(network.userAgents()).append(":");
        network.busiestUserAgents().forEach(agent -> text.append("\n  ").append(agent.isEmpty() ? "(none)" : agent));
        return text.toString();
    }

    /**
     * The browser check's steps in words, on a line of their own, short enough for the panel at 1366x768; nothing for a
     * network it never met.
     */
    static String funnelText(NetworkFunnel steps) {
        if (steps == null || steps.equals(NetworkFunnel.NONE)) {
            return "";
        }
        return "\nCheck: asked " + steps.challenged() + ", passed " + (steps.passesEarned() + steps.weakPassesEarned())
                + (steps.weakPassesEarned() > 0 ? " (" + steps.weakPassesEarned() + " no JS)" : "") + ", failed "
                + steps.answersRefused() + ", on a pass " + steps.servedOnPass();
    }

    /** Microseconds as seconds for an operator: "0.35 s", "12.6 s". */
    static String seconds(long micros) {
        double seconds = micros / 1e6;
        return seconds >= 10 ? String.format(Locale.ROOT, "%.1f s", seconds)
                : String.format(Locale.ROOT, "%.2f s", seconds);
    }

    public ObjectProperty<Ranking> rankingProperty() {
        return ranking;
    }

    public ReadOnlyObjectProperty<List<Row>> rowsProperty() {
        return rows.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Row> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty selectedIndexProperty() {
        return selectedIndex.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty detailsProperty() {
        return details.getReadOnlyProperty();
    }

    /** Pressure on the server's table of networks. */
    public ReadOnlyStringProperty tableProperty() {
        return table.getReadOnlyProperty();
    }

    public ObjectProperty<BanDuration> banDurationProperty() {
        return banDuration;
    }

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    /** Bans the selected network (its CIDR) for the chosen duration. */
    public Command banNetwork() {
        return banNetwork;
    }

    /** The browser check asks the selected network's browser claims whenever it is not off. */
    public Command challenge() {
        return challenge;
    }

    /** Undoes {@link #challenge}. */
    public Command stopChallenging() {
        return stopChallenging;
    }

    /** Lifts the ban of the selected network. */
    public Command undoBan() {
        return undoBan;
    }
}
