package io.sluice.console.live;

import io.sluice.console.chart.AuditMark;
import io.sluice.console.chart.OperatorMarks;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.CostShare;
import io.sluice.engine.telemetry.CostSummary;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.ObjectBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableBooleanValue;
import javafx.collections.ObservableList;

/**
 * The live room: rates by class and refusals by reason, load against its limits, latency, the heatmap of the
 * busiest clients with the selected one's details and its one-click bans, and the operator's own actions as
 * marks on the time axis. Fed by the session's snapshots; no toolkit needed.
 */
public final class LiveViewModel {
    /** Seconds of history the rate chart shows. */
    public static final int CHART_SECONDS = 120;
    /** A bar this full reads "high". */
    static final double HIGH = 0.8;

    private final Session session;
    private final ReadOnlyObjectWrapper<Snapshot> snapshot = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper inFlight = new ReadOnlyStringWrapper("in flight -");
    private final ReadOnlyDoubleWrapper inFlightShare = new ReadOnlyDoubleWrapper();
    private final ReadOnlyStringWrapper waiting = new ReadOnlyStringWrapper("waiting -");
    private final ReadOnlyDoubleWrapper waitingShare = new ReadOnlyDoubleWrapper();
    private final ReadOnlyLongWrapper chartEnd = new ReadOnlyLongWrapper();
    private final ReadOnlyStringWrapper latency = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper clients = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper refusals = new ReadOnlyStringWrapper("-");
    private final ReadOnlyObjectWrapper<ClientRow> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyIntegerWrapper selectedIndex = new ReadOnlyIntegerWrapper(-1);
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper(NOTHING_SELECTED);
    private final ObjectProperty<BanDuration> banDuration = new SimpleObjectProperty<>(BanDuration.ONE_HOUR);
    private final StringProperty banReason = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final OperatorMarks marks;
    private final ObjectProperty<HeatmapRanking> heatmapRanking = new SimpleObjectProperty<>(HeatmapRanking.HITS);
    private final ReadOnlyStringWrapper costSummary = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper costRising = new ReadOnlyBooleanWrapper();
    private final ObjectBinding<List<ClientRow>> rows = Bindings.createObjectBinding(
            () -> rowsOf(snapshot.get()), snapshot, heatmapRanking);
    private final Command banIp;
    private final Command banUserAgent;
    private final Command banClient;

    private static final String NOTHING_SELECTED = "Select a client in the heatmap";

    /** What the heatmap's rows are: the busiest clients by hits, or the costliest by the upstream's time. */
    public enum HeatmapRanking {
        HITS("hits"),
        COST("cost");

        private final String label;

        HeatmapRanking(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** A point of the rate chart: one second's count. */
    public record RatePoint(long epochSecond, long count) {
    }

    /** What banning a client from the heatmap sends: the admin API's ban {@code type} and {@code value}. */
    public record BanTarget(String type, String value, String description) {
    }

    public LiveViewModel(Session session) {
        this.session = session;
        this.marks = new OperatorMarks(session.ui(), session.client()::audit);
        var anySelected = selected.isNotNull();
        this.banIp = banCommand(anySelected, LiveViewModel::banIp);
        this.banUserAgent = banCommand(anySelected, LiveViewModel::banUserAgent);
        this.banClient = banCommand(anySelected, LiveViewModel::banClient);
        session.snapshots().subscribe(this::apply, failure -> { });
        heatmapRanking.addListener((o, was, now) -> reselect());
    }

    /** The heatmap's rows of {@code latest} as ranked now. */
    private List<ClientRow> rowsOf(Snapshot latest) {
        if (latest == null) {
            return List.of();
        }
        return heatmapRanking.get() == HeatmapRanking.COST ? latest.costliestClients() : latest.topClients();
    }

    private Command banCommand(ObservableBooleanValue enabled,
                               Function<ClientRow, BanTarget> target) {
        return Command.admin(session.ui(), enabled, () -> {
            BanTarget what = target.apply(selected.get());
            String reason = banReason.get() == null || banReason.get().isBlank() ? "banned from the console"
                    : banReason.get().strip();
            Long seconds = banDuration.get() == null ? BanDuration.ONE_HOUR.seconds() : banDuration.get().seconds();
            return () -> {
                session.client().ban(what.type(), what.value(), reason, seconds);
                return what;
            };
        }, what -> {
            actionResult.set("Banned " + what.description());
            session.snapshots().refreshSoon();
        }, why -> actionResult.set("Failed: " + why.getMessage()));
    }

    /** A new snapshot: every number, the bars, the selection; the marks when the policy changed. */
    public void apply(Snapshot latest) {
        snapshot.set(latest);
        List<SecondCounts> seconds = latest.seconds();
        if (seconds.size() > 1) {
            chartEnd.set(seconds.get(seconds.size() - 2).epochSecond());
        }
        LoadState load = latest.load();
        inFlight.set("in flight " + load.inFlight() + " / " + load.maxActive());
        inFlightShare.set(share(load.inFlight(), load.maxActive()));
        waiting.set("waiting " + load.waiting() + " / " + load.maxWaiting());
        waitingShare.set(share(load.waiting(), load.maxWaiting()));
        latency.set(latest.upstreamLatency().count() == 0 ? "upstream latency: no requests yet"
                : "upstream p50 " + millis(latest.upstreamLatency().p50Micros()) + "  p90 "
                        + millis(latest.upstreamLatency().p90Micros()) + "  p99 "
                        + millis(latest.upstreamLatency().p99Micros()));
        clients.set("clients tracked " + latest.clients().tracked() + " / " + latest.clients().capacity()
                + "   evicted " + latest.clients().evicted());
        refusals.set(refusalSummary(latest));
        CostSummary costs = latest.costSummary();
        costSummary.set(costSummary(costs));
        costRising.set(costs.byClass() != null && costs.byClass().rising()
                || costs.byNetwork() != null && costs.byNetwork().rising()
                || costs.byRoute() != null && costs.byRoute().rising());
        reselect();
        marks.policyVersion(latest.policyVersion());
    }

    /** Keeps the selection on the same client, with its fresh row (or its last one, if it left the table). */
    private void reselect() {
        List<ClientRow> shown = rowsOf(snapshot.get());
        ClientRow current = selected.get();
        int index = current == null ? -1 : indexOf(shown, current);
        select(index >= 0 ? shown.get(index) : current, index);
    }

    /** Selects the heatmap's row {@code index} of the current snapshot. */
    public void select(int index) {
        List<ClientRow> shown = rowsOf(snapshot.get());
        if (index >= 0 && index < shown.size()) {
            select(shown.get(index), index);
        }
    }

    /**
     * "What is costing us?" in one line: the class, network and route holding the largest share of the upstream's
     * time over the last minute, each with whether its share is rising.
     */
    static String costSummary(CostSummary costs) {
        if (costs == null || costs.upstreamMicros() == 0) {
            return "What is costing us: nothing measured in the last minute";
        }
        StringBuilder text = new StringBuilder("What is costing us (upstream ")
                .append(NetworksViewModel.seconds(costs.upstreamMicros())).append(" in the last minute):");
        leader(text, "class", costs.byClass());
        leader(text, "network", costs.byNetwork());
        leader(text, "route", costs.byRoute());
        return text.toString();
    }

    private static void leader(StringBuilder text, String what, CostShare share) {
        if (share == null) {
            return;
        }
        String key = what.equals("class") ? share.key().toLowerCase(Locale.ROOT) : share.key();
        text.append("  ").append(what).append(' ').append(key).append(' ')
                .append(Math.round(share.share() * 100)).append(" %")
                .append(share.rising() ? " (rising)" : share.recentShare() < share.earlierShare() - 0.05
                        ? " (falling)" : " (steady)");
    }

    private void select(ClientRow row, int index) {
        selected.set(row);
        selectedIndex.set(index);
        details.set(row == null ? NOTHING_SELECTED : describe(row));
    }

    private static int indexOf(List<ClientRow> rows, ClientRow client) {
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).ip().equals(client.ip()) && rows.get(i).userAgent().equals(client.userAgent())) {
                return i;
            }
        }
        return -1;
    }

    /** Served (admitted + delayed) requests per second of {@code requestClass}, oldest first. */
    public List<RatePoint> served(RequestClass requestClass) {
        return points(counts -> {
            ClassCounts c = counts.byClass().get(requestClass);
            return c == null ? 0 : c.admitted() + c.delayed();
        });
    }

    /** Refused requests per second for the reasons of {@code kind}, every class, oldest first. */
    public List<RatePoint> refused(RefusalKind kind) {
        return points(counts -> {
            long n = 0;
            for (ClassCounts c : counts.byClass().values()) {
                for (Reason reason : kind.reasons()) {
                    n += c.refused().getOrDefault(reason, 0L);
                }
            }
            return n;
        });
    }

    private List<RatePoint> points(ToLongFunction<SecondCounts> count) {
        Snapshot latest = snapshot.get();
        if (latest == null) {
            return List.of();
        }
        List<SecondCounts> seconds = latest.seconds();
        // The newest entry is the second still in progress; it would always look like a dip.
        int end = Math.max(0, seconds.size() - 1);
        List<RatePoint> points = new ArrayList<>();
        for (SecondCounts second : seconds.subList(Math.max(0, end - CHART_SECONDS), end)) {
            points.add(new RatePoint(second.epochSecond(), count.applyAsLong(second)));
        }
        return points;
    }

    /** Refusals by reason over the last minute. */
    public static Map<Reason, Long> refusalsLastMinute(Snapshot latest) {
        Map<Reason, Long> totals = new EnumMap<>(Reason.class);
        List<SecondCounts> seconds = latest.seconds();
        for (SecondCounts second : seconds.subList(Math.max(0, seconds.size() - 61), seconds.size())) {
            for (ClassCounts counts : second.byClass().values()) {
                counts.refused().forEach((reason, n) -> totals.merge(reason, n, Long::sum));
            }
        }
        return totals;
    }

    private static String refusalSummary(Snapshot latest) {
        Map<Reason, Long> totals = refusalsLastMinute(latest);
        if (totals.isEmpty()) {
            return "no refusals in the last minute";
        }
        StringBuilder text = new StringBuilder("refused in the last minute:");
        totals.entrySet().stream()
                .sorted(Map.Entry.<Reason, Long>comparingByValue().reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> text.append("  ").append(e.getKey().name()).append(' ').append(e.getValue()));
        return text.toString();
    }

    /** Used of limit, 0 to 1 (a bar's length); a limit of 0 is full as soon as anything uses it. */
    static double share(long used, long limit) {
        if (limit <= 0) {
            return used > 0 ? 1 : 0;
        }
        return Math.min(1.0, (double) used / limit);
    }

    /** A bar's state for its style: "full" at the limit, "high" from {@link #HIGH}, else "normal". */
    public static String level(double share) {
        return share >= 1 ? "full" : share >= HIGH ? "high" : "normal";
    }

    public static BanTarget banIp(ClientRow row) {
        return new BanTarget("ip", row.ip(), "IP " + row.ip());
    }

    public static BanTarget banUserAgent(ClientRow row) {
        return new BanTarget("agent", row.userAgent(), "user agent \"" + row.userAgent() + "\"");
    }

    public static BanTarget banClient(ClientRow row) {
        return new BanTarget("client", row.ip() + "|" + row.userAgent(), "client " + row.ip() + " + user agent");
    }

    static String describe(ClientRow row) {
        int total = 0;
        int refused = 0;
        for (int i = 0; i < row.hitsPerSecond().length; i++) {
            total += row.hitsPerSecond()[i];
            refused += i < row.refusedPerSecond().length ? row.refusedPerSecond()[i] : 0;
        }
        return "IP: " + row.ip() + "\nUser agent: " + row.userAgent() + "\nClass: " + row.requestClass()
                + (row.crawlerName() == null ? "" : " (" + row.crawlerName() + identity(row, true) + ")")
                + "\nStatus: " + row.status() + "\nHits in window: " + row.hitsInWindow() + "   in flight: "
                + row.inFlight() + "\nLast 60 s: " + total + " hits, " + refused + " refused"
                + (row.cost() == null ? "" : "\nUpstream time, last minute: "
                        + NetworksViewModel.seconds(row.cost().upstreamMicros()) + "   bytes in "
                        + row.cost().bytesIn() + ", out " + row.cost().bytesOut());
    }

    /**
     * The time at the left edge of heatmap column {@code column} of {@code seconds} (a row's per-second counts run
     * from the oldest to the newest second, so column {@code seconds} is the right edge): "-60 s" ... "now".
     */
    public static String heatmapTick(int column, int seconds) {
        int secondsAgo = seconds - column;
        return secondsAgo == 0 ? "now" : "-" + secondsAgo + " s";
    }

    /**
     * A heatmap row's label in at most {@code columns} characters: class, address, who (crawler name or user
     * agent), hits in the window and, when its requests took any, its upstream time over the last minute. Only
     * "who" is shortened, since the address and the counts are what an operator acts on; an address too long for
     * the line (IPv6) is shortened last.
     */
    public static String heatmapLabel(ClientRow row, int columns) {
        String who = row.crawlerName() != null ? row.crawlerName() + identity(row, false) : row.userAgent();
        // a row without a class (an older server's snapshot could hold one) is labelled, never a crash
        String cls = row.requestClass() == null ? "unclassified" : row.requestClass().name().toLowerCase(Locale.ROOT);
        String prefix = cls + " " + row.ip() + "  ";
        // with its upstream time when it has one: the heatmap ranked by cost shows what it is ranked by
        String suffix = "  " + row.hitsInWindow()
                + (row.upstreamMicros() > 0 ? "  " + NetworksViewModel.seconds(row.upstreamMicros()) : "");
        int room = columns - prefix.length() - suffix.length();
        if (room >= 2) {
            return prefix + shorten(who, room) + suffix;
        }
        return shorten(prefix.strip(), Math.max(1, columns - suffix.length())) + suffix;
    }

    /**
     * What a crawler claim is worth, after its name: a verified crawler is the real one (its own spacing); a claimed
     * one only says so (a bot keyed by its address, or believed unchecked when verification is off). Empty for a
     * row without a claim, and from a server older than the field.
     */
    static String identity(ClientRow row, boolean explained) {
        if (row.crawlerIdentity() == null) {
            return "";
        }
        return switch (row.crawlerIdentity()) {
            case VERIFIED -> explained ? ", verified: its address is the crawler's" : " (verified)";
            case CLAIMED -> explained ? ", claimed: only its user agent says so" : " (claimed)";
        };
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    private static String millis(long micros) {
        return micros >= 10_000 ? (micros / 1000) + " ms" : String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
    }

    public ReadOnlyObjectProperty<Snapshot> snapshotProperty() {
        return snapshot.getReadOnlyProperty();
    }

    /** The heatmap's rows: the busiest clients of the latest snapshot. */
    public ObjectBinding<List<ClientRow>> rows() {
        return rows;
    }

    /** The newest complete second: the right end of the charts' time axis ({@link #CHART_SECONDS} wide). */
    public ReadOnlyLongProperty chartEndProperty() {
        return chartEnd.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty inFlightProperty() {
        return inFlight.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty inFlightShareProperty() {
        return inFlightShare.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty waitingProperty() {
        return waiting.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty waitingShareProperty() {
        return waitingShare.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty latencyProperty() {
        return latency.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty clientsProperty() {
        return clients.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty refusalsProperty() {
        return refusals.getReadOnlyProperty();
    }

    /** "What is costing us?" (see {@link #costSummary(CostSummary)}). */
    public ReadOnlyStringProperty costSummaryProperty() {
        return costSummary.getReadOnlyProperty();
    }

    /** Whether a share in the cost summary is rising. */
    public ReadOnlyBooleanProperty costRisingProperty() {
        return costRising.getReadOnlyProperty();
    }

    /** What the heatmap ranks its rows by. */
    public ObjectProperty<HeatmapRanking> heatmapRankingProperty() {
        return heatmapRanking;
    }

    public ReadOnlyObjectProperty<ClientRow> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty selectedIndexProperty() {
        return selectedIndex.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty detailsProperty() {
        return details.getReadOnlyProperty();
    }

    public ObjectProperty<BanDuration> banDurationProperty() {
        return banDuration;
    }

    public StringProperty banReasonProperty() {
        return banReason;
    }

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    /** The operator's actions on the chart, oldest first. */
    public ObservableList<AuditMark> marks() {
        return marks.marks();
    }

    public Command banIp() {
        return banIp;
    }

    public Command banUserAgent() {
        return banUserAgent;
    }

    public Command banClient() {
        return banClient;
    }
}
