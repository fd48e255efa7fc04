package io.sluice.console.fleet;

import io.sluice.console.api.Fleet;
import io.sluice.console.api.FleetNode;
import io.sluice.console.chart.AuditMark;
import io.sluice.console.chart.OperatorMarks;
import io.sluice.console.ui.Feed;
import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The fleet room's state, from {@code GET /api/v1/cluster}: every node with its health, load and rates; the
 * cluster's totals, or one node's figures once it is selected; and what needs an operator's eye (a silent
 * node, a degraded one, a Redis the answering node cannot read) as alerts in words; the last minute per second
 * with the operator's actions marked on it. Read through a {@link Feed} (the session's executor, once a second
 * while the room is seen); no toolkit needed: the properties change only on the UI executor (the FX thread in the
 * console, the calling thread in tests).
 */
public final class FleetViewModel {
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /** Seconds of history the chart shows: the fleet's per-second counts cover the last minute. */
    public static final int CHART_SECONDS = 60;

    /** One class's rates in the focused figures. */
    public record ClassRow(RequestClass requestClass, String requests, String refused) {
    }

    /** One second of the focused figures, for the chart: all requests, and of those the refused. */
    public record SecondRate(long epochSecond, long requests, long refused) {
    }

    private final Feed<Optional<Fleet>> fleet;
    private final OperatorMarks marks;

    private final ObservableList<NodeRow> nodes = FXCollections.observableArrayList();
    private final ObservableList<String> alerts = FXCollections.observableArrayList();
    private final ObservableList<ClassRow> focusClasses = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("Reading the fleet…");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper standalone = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper redisDegraded = new ReadOnlyBooleanWrapper();
    private final ReadOnlyObjectWrapper<String> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper focusTitle = new ReadOnlyStringWrapper("Cluster");
    private final ReadOnlyStringWrapper focusInFlight = new ReadOnlyStringWrapper("—");
    private final ReadOnlyStringWrapper focusRequests = new ReadOnlyStringWrapper("—");
    private final ReadOnlyStringWrapper focusRefused = new ReadOnlyStringWrapper("—");
    private final ReadOnlyObjectWrapper<List<SecondRate>> focusSeconds = new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyLongWrapper chartEnd = new ReadOnlyLongWrapper();
    private Fleet last;

    /**
     * @param fleet readings of {@code GET /api/v1/cluster} (empty when the server runs alone), handed over on the
     *              UI executor; started and stopped by {@link #start()} and {@link #stop()}
     * @param marks the operator's actions, read again when the fleet's newest policy version changes
     */
    public FleetViewModel(Feed<Optional<Fleet>> fleet, OperatorMarks marks) {
        this.fleet = fleet;
        this.marks = marks;
        fleet.subscribe(this::show, failure -> error.set(failure.getMessage()));
    }

    /** Every node, by name; a row's {@link NodeRow#health()} says how it stands. */
    public ObservableList<NodeRow> nodes() {
        return FXCollections.unmodifiableObservableList(nodes);
    }

    /** What needs an operator's eye, most serious first; empty when all is well. */
    public ObservableList<String> alerts() {
        return FXCollections.unmodifiableObservableList(alerts);
    }

    /** The focused figures (the cluster's or the selected node's) per class. */
    public ObservableList<ClassRow> focusClasses() {
        return FXCollections.unmodifiableObservableList(focusClasses);
    }

    /** "3 nodes · 2 healthy · 1 unreachable". */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** Why the last reading failed ("cannot reach …"); empty after a good one. */
    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** The server runs alone (no {@code --redis}): there is no fleet to show. */
    public ReadOnlyBooleanProperty standaloneProperty() {
        return standalone.getReadOnlyProperty();
    }

    /** The answering node cannot read Redis well (degraded, or its view is stale). */
    public ReadOnlyBooleanProperty redisDegradedProperty() {
        return redisDegraded.getReadOnlyProperty();
    }

    /** The selected node's name, or null while the cluster's totals are shown. */
    public ReadOnlyObjectProperty<String> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    /** "Cluster: 3 nodes, 2 reachable" or "web-2 · UNREACHABLE". */
    public ReadOnlyStringProperty focusTitleProperty() {
        return focusTitle.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty focusInFlightProperty() {
        return focusInFlight.getReadOnlyProperty();
    }

    /** Requests per second over the last complete seconds ({@link Rates}). */
    public ReadOnlyStringProperty focusRequestsProperty() {
        return focusRequests.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty focusRefusedProperty() {
        return focusRefused.getReadOnlyProperty();
    }

    /** The focused per-second figures, oldest first (for the chart). */
    public ReadOnlyObjectProperty<List<SecondRate>> focusSecondsProperty() {
        return focusSeconds.getReadOnlyProperty();
    }

    /** The chart's newest second: the focused figures' newest complete one (the newest is still counted). */
    public ReadOnlyLongProperty chartEndProperty() {
        return chartEnd.getReadOnlyProperty();
    }

    /** The operator's actions, for the chart's marks, oldest first. */
    public ObservableList<AuditMark> marks() {
        return marks.marks();
    }

    /** The room is seen: reads the fleet now and then every period, on the session's executor. */
    public void start() {
        fleet.start();
    }

    /** The room was left: no more readings until {@link #start()}. */
    public void stop() {
        fleet.stop();
    }

    /** Command: reads the fleet now (the feed never asks a slow server twice at once). */
    public void refresh() {
        fleet.refreshSoon();
    }

    /** Command: show one node's figures (a click on its row). */
    public void select(String node) {
        selected.set(node);
        focus();
    }

    /** Command: back to the cluster's totals. */
    public void showTotals() {
        select(null);
    }

    /** Shows a reading (on the UI executor). */
    void show(Optional<Fleet> reading) {
        error.set("");
        standalone.set(reading.isEmpty());
        if (reading.isEmpty()) {
            last = null;
            nodes.clear();
            alerts.clear();
            redisDegraded.set(false);
            summary.set("This server runs alone (started without --redis): it has no fleet");
            focus();
            return;
        }
        Fleet fleet = reading.get();
        last = fleet;
        marks.policyVersion(fleet.nodes().stream().mapToLong(FleetNode::policyVersion).max().orElse(0));
        long newestPolicy = fleet.nodes().stream().filter(n -> n.state() != FleetNode.State.UNREACHABLE)
                .mapToLong(FleetNode::policyVersion).max().orElse(0);
        nodes.setAll(fleet.nodes().stream().map(node -> row(node, fleet.at(), newestPolicy)).toList());
        alerts.setAll(alerts(fleet, newestPolicy));
        redisDegraded.set(fleet.state() == ClusterState.DEGRADED || fleet.stale());
        summary.set(summary(fleet));
        focus();
    }

    private void focus() {
        FleetNode node = last == null || selected.get() == null ? null : last.nodes().stream()
                .filter(n -> n.name().equals(selected.get())).findFirst().orElse(null);
        if (last == null) {
            focusTitle.set("No fleet");
            setFocus("—", List.of());
        } else if (node == null) {
            Fleet.Totals totals = last.totals();
            focusTitle.set("Cluster: " + plural(totals.nodes(), "node") + ", " + totals.reachable() + " reachable");
            setFocus(String.valueOf(totals.inFlight()), totals.seconds());
        } else {
            focusTitle.set(node.name() + " · " + stateText(health(node.state())));
            boolean silent = node.state() == FleetNode.State.UNREACHABLE;
            setFocus(node.inFlight() + (silent ? " (last reported)" : ""), node.seconds());
        }
    }

    private void setFocus(String inFlight, List<SecondCounts> seconds) {
        Rates rates = Rates.of(seconds);
        focusInFlight.set(inFlight);
        focusRequests.set(seconds.isEmpty() ? "—" : perSecond(rates.requests()));
        focusRefused.set(seconds.isEmpty() ? "—" : perSecond(rates.refused()));
        focusSeconds.set(seconds.stream().map(FleetViewModel::rate).sorted(Comparator.comparingLong(
                SecondRate::epochSecond)).toList());
        long newest = seconds.stream().mapToLong(SecondCounts::epochSecond).max().orElse(0);
        if (newest > 0) {
            chartEnd.set(newest - 1);
        }
        List<ClassRow> rows = new ArrayList<>();
        rates.byClass().forEach((requestClass, rate) -> rows.add(new ClassRow(requestClass,
                perSecond(rate.requests()), perSecond(rate.refused()))));
        focusClasses.setAll(rows);
    }

    private static SecondRate rate(SecondCounts second) {
        long requests = 0;
        long refused = 0;
        for (ClassCounts counts : second.byClass() == null ? List.<ClassCounts>of() : second.byClass().values()) {
            long refusals = counts.refused() == null ? 0
                    : counts.refused().values().stream().mapToLong(Long::longValue).sum();
            requests += counts.admitted() + counts.delayed() + refusals;
            refused += refusals;
        }
        return new SecondRate(second.epochSecond(), requests, refused);
    }

    static NodeRow row(FleetNode node, Instant now, long newestPolicy) {
        NodeHealth health = health(node.state());
        boolean silent = health == NodeHealth.UNREACHABLE;
        Rates rates = Rates.of(node.seconds());
        boolean behind = !silent && node.policyVersion() < newestPolicy;
        return new NodeRow(node.name(), node.admin(), health, stateText(health), node.inFlight(),
                silent ? "—" : perSecond(rates.requests()), silent ? "—" : perSecond(rates.refused()),
                "v" + node.policyVersion() + (behind ? " (behind)" : ""), ago(node.lastHeard(), now),
                health != NodeHealth.HEALTHY || behind);
    }

    static NodeHealth health(FleetNode.State state) {
        return switch (state) {
            case HEALTHY -> NodeHealth.HEALTHY;
            case DEGRADED -> NodeHealth.DEGRADED;
            case UNREACHABLE -> NodeHealth.UNREACHABLE;
            case UNKNOWN -> NodeHealth.UNKNOWN;
        };
    }

    private static String stateText(NodeHealth health) {
        return switch (health) {
            case HEALTHY -> "healthy";
            case DEGRADED -> "DEGRADED";
            case UNREACHABLE -> "UNREACHABLE";
            case UNKNOWN -> "unknown";
        };
    }

    private static List<String> alerts(Fleet fleet, long newestPolicy) {
        List<String> alerts = new ArrayList<>();
        if (fleet.state() == ClusterState.DEGRADED) {
            alerts.add("Redis is slow or unreachable from " + fleet.answeredBy()
                    + ": the nodes serve on their local state, with limits scaled to the nodes last seen");
        }
        if (fleet.stale()) {
            alerts.add("This view is stale: " + fleet.answeredBy() + " could not read Redis and shows what it read at "
                    + (fleet.at() == null ? "an earlier time" : CLOCK.format(fleet.at())));
        }
        for (FleetNode node : fleet.nodes()) {
            switch (node.state()) {
                case UNREACHABLE -> alerts.add(node.name() + " is silent: not heard from for "
                        + duration(node.lastHeard(), fleet.at())
                        + " (stopped, cut off from Redis, or gone); its load no longer counts");
                case DEGRADED -> alerts.add(node.name()
                        + " is degraded: its link to Redis is slow or lost, it serves on its local state");
                default -> {
                    if (node.policyVersion() < newestPolicy) {
                        alerts.add(node.name() + " runs policy v" + node.policyVersion() + ", the newest is v"
                                + newestPolicy);
                    }
                }
            }
        }
        return alerts;
    }

    private static String summary(Fleet fleet) {
        long healthy = fleet.nodes().stream().filter(n -> n.state() == FleetNode.State.HEALTHY).count();
        long degraded = fleet.nodes().stream().filter(n -> n.state() == FleetNode.State.DEGRADED).count();
        long silent = fleet.nodes().stream().filter(n -> n.state() == FleetNode.State.UNREACHABLE).count();
        StringBuilder text = new StringBuilder(plural(fleet.nodes().size(), "node")).append(" · ")
                .append(healthy).append(" healthy");
        if (degraded > 0) {
            text.append(" · ").append(degraded).append(" degraded");
        }
        if (silent > 0) {
            text.append(" · ").append(silent).append(" unreachable");
        }
        return text.append(" · Redis ").append(fleet.redis()).toString();
    }

    private static String ago(Instant then, Instant now) {
        return then == null || now == null ? "never" : duration(then, now) + " ago";
    }

    private static String duration(Instant then, Instant now) {
        if (then == null || now == null) {
            return "a while";
        }
        Duration gap = Duration.between(then, now);
        if (gap.isNegative()) {
            gap = Duration.ZERO;
        }
        if (gap.toSeconds() < 10) {
            return String.format(Locale.ROOT, "%.1f s", gap.toMillis() / 1000.0);
        }
        if (gap.toMinutes() < 2) {
            return gap.toSeconds() + " s";
        }
        if (gap.toHours() < 2) {
            return gap.toMinutes() + " min";
        }
        return gap.toHours() + " h";
    }

    private static String perSecond(double rate) {
        return String.format(Locale.ROOT, rate < 10 ? "%.1f/s" : "%.0f/s", rate);
    }

    private static String plural(long count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }
}
