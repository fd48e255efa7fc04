package io.sluice.console.dashboard;

import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * What the dashboard shows, derived from the latest snapshot. Plain properties and values: tested
 * without the JavaFX toolkit; the view binds to it and calls {@link #apply} once per pulse at most.
 */
public final class DashboardViewModel {
    /** Seconds of history the rate chart shows. */
    public static final int CHART_SECONDS = 120;

    private final ReadOnlyStringWrapper connection = new ReadOnlyStringWrapper("Not connected");
    private final ReadOnlyBooleanWrapper connected = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper policyVersion = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper pauseBanner = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper paused = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper load = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper latency = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper clients = new ReadOnlyStringWrapper("-");
    private final ReadOnlyStringWrapper refusals = new ReadOnlyStringWrapper("-");
    private final ReadOnlyObjectWrapper<Snapshot> snapshot = new ReadOnlyObjectWrapper<>();
    private final ObjectProperty<ClientRow> selected = new SimpleObjectProperty<>();

    /** A point of the rate chart: one second, served and refused requests of one class. */
    public record RatePoint(long epochSecond, long served, long refused) {
    }

    /** What banning a client from the heatmap sends: the admin API's ban {@code type} and {@code value}. */
    public record BanTarget(String type, String value, String description) {
    }

    public void apply(Snapshot latest) {
        snapshot.set(latest);
        connected.set(true);
        policyVersion.set("policy v" + latest.policyVersion());
        paused.set(latest.pause().all() || !latest.pause().classes().isEmpty());
        pauseBanner.set(latest.pause().all() ? "SERVICE PAUSED"
                : latest.pause().classes().isEmpty() ? "" : "PAUSED: " + String.join(", ",
                        latest.pause().classes().stream().map(Enum::name).toList()));
        load.set("in flight " + latest.load().inFlight() + " / " + latest.load().maxActive()
                + "   waiting " + latest.load().waiting() + " / " + latest.load().maxWaiting());
        latency.set(latest.upstreamLatency().count() == 0 ? "upstream latency: no requests yet"
                : "upstream p50 " + millis(latest.upstreamLatency().p50Micros()) + "  p90 "
                        + millis(latest.upstreamLatency().p90Micros()) + "  p99 "
                        + millis(latest.upstreamLatency().p99Micros()));
        clients.set("clients tracked " + latest.clients().tracked() + " / " + latest.clients().capacity()
                + "   evicted " + latest.clients().evicted());
        refusals.set(refusalSummary(latest));
        ClientRow current = selected.get();
        if (current != null) {
            // Keep the selection on the same client, with its fresh row.
            selected.set(latest.topClients().stream()
                    .filter(r -> r.ip().equals(current.ip()) && r.userAgent().equals(current.userAgent()))
                    .findFirst().orElse(current));
        }
    }

    /** The connection was lost or refused: say so, keep the last data visible. */
    public void disconnected(String why) {
        connected.set(false);
        connection.set(why);
    }

    public void connectedTo(String where) {
        connection.set("Connected to " + where);
    }

    /** Served (admitted + delayed) and refused requests per second of {@code requestClass}, oldest first. */
    public List<RatePoint> rates(RequestClass requestClass) {
        Snapshot latest = snapshot.get();
        if (latest == null) {
            return List.of();
        }
        List<SecondCounts> seconds = latest.seconds();
        List<RatePoint> points = new ArrayList<>();
        // The newest entry is the second still in progress; it would always look like a dip.
        int end = Math.max(0, seconds.size() - 1);
        for (SecondCounts second : seconds.subList(Math.max(0, end - CHART_SECONDS), end)) {
            ClassCounts counts = second.byClass().get(requestClass);
            long refused = counts == null ? 0 : counts.refused().values().stream().mapToLong(Long::longValue).sum();
            points.add(new RatePoint(second.epochSecond(), counts == null ? 0 : counts.admitted() + counts.delayed(),
                    refused));
        }
        return points;
    }

    /** Refusals by reason over the last minute, most first. */
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
        Map<Long, List<String>> byCount = new TreeMap<>(java.util.Comparator.reverseOrder());
        totals.forEach((reason, n) -> byCount.computeIfAbsent(n, k -> new ArrayList<>()).add(reason.name()));
        StringBuilder text = new StringBuilder("refused in the last minute:");
        byCount.forEach((n, reasons) -> reasons.forEach(r -> text.append("  ").append(r).append(' ').append(n)));
        return text.toString();
    }

    public BanTarget banIp(ClientRow row) {
        return new BanTarget("ip", row.ip(), "IP " + row.ip());
    }

    public BanTarget banUserAgent(ClientRow row) {
        return new BanTarget("agent", row.userAgent(), "user agent \"" + row.userAgent() + "\"");
    }

    public BanTarget banClient(ClientRow row) {
        return new BanTarget("client", row.ip() + "|" + row.userAgent(), "client " + row.ip() + " + user agent");
    }

    /** "12m left", "permanent", or "expired" for the ban list. */
    public static String timeLeft(Ban ban, Instant now) {
        if (ban.expiresAt() == null) {
            return "permanent";
        }
        Duration left = Duration.between(now, ban.expiresAt());
        if (left.isNegative() || left.isZero()) {
            return "expired";
        }
        if (left.toHours() >= 1) {
            return left.toHours() + "h " + left.toMinutesPart() + "m left";
        }
        return left.toMinutes() >= 1 ? left.toMinutes() + "m left" : left.toSeconds() + "s left";
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
     * agent) and hits in the window. Only "who" is shortened, since the address and the count are what an
     * operator acts on; an address too long for the line (IPv6) is shortened last.
     */
    public static String heatmapLabel(ClientRow row, int columns) {
        String who = row.crawlerName() != null ? row.crawlerName() : row.userAgent();
        String prefix = row.requestClass().name().toLowerCase(Locale.ROOT) + " " + row.ip() + "  ";
        String suffix = "  " + row.hitsInWindow();
        int room = columns - prefix.length() - suffix.length();
        if (room >= 2) {
            return prefix + shorten(who, room) + suffix;
        }
        return shorten(prefix.strip(), Math.max(1, columns - suffix.length())) + suffix;
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    private static String millis(long micros) {
        return micros >= 10_000 ? (micros / 1000) + " ms" : String.format("%.1f ms", micros / 1000.0);
    }

    public ReadOnlyStringProperty connectionProperty() {
        return connection.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty connectedProperty() {
        return connected.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty policyVersionProperty() {
        return policyVersion.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty pauseBannerProperty() {
        return pauseBanner.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty pausedProperty() {
        return paused.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty loadProperty() {
        return load.getReadOnlyProperty();
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

    public ReadOnlyObjectProperty<Snapshot> snapshotProperty() {
        return snapshot.getReadOnlyProperty();
    }

    public ObjectProperty<ClientRow> selectedProperty() {
        return selected;
    }
}
