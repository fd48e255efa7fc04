package io.sluice.console.domains;

import io.sluice.console.api.AdminException;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Feed;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.GovernorAlert;
import io.sluice.engine.governor.GovernorSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableBooleanValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * What the domains room shows, in words, from the governor's snapshot (fetched every two seconds), and the
 * operator's actions on the selected domain; no toolkit needed, so it is tested without one.
 */
public final class DomainsViewModel {
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /** One table row, every cell already in the operator's words. */
    public record DomainRow(String domain, String rate, String minDelay, String breaker, String errors,
            String blocked, String statuses, String permits, boolean needsAttention, DomainView view) {
    }

    private final ObservableList<DomainRow> rows = FXCollections.observableArrayList();
    private final ObservableList<String> alerts = FXCollections.observableArrayList();
    private final ObservableList<DomainRow> rowsView = FXCollections.unmodifiableObservableList(rows);
    private final ObservableList<String> alertsView = FXCollections.unmodifiableObservableList(alerts);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("No crawl governor data yet");
    private final ReadOnlyObjectWrapper<DomainRow> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper selectedText = new ReadOnlyStringWrapper("Select a domain");
    private final ReadOnlyBooleanWrapper revivable = new ReadOnlyBooleanWrapper();
    private final StringProperty rate = new SimpleStringProperty("");
    private final StringProperty minDelay = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final Feed<GovernorSnapshot> feed;
    private final Command setRate;
    private final Command setMinDelay;
    private final Command reset;
    private final Command revive;

    /** One action on a domain, as the admin API offers it. */
    private interface DomainAction {
        Object apply(String domain) throws AdminException;
    }

    public DomainsViewModel(Session session) {
        this.feed = session.feed(session.client()::domains, Duration.ofSeconds(2));
        feed.subscribe(this::update, failure -> actionResult.set("Cannot load domains: " + failure.getMessage()));
        var anySelected = selected.isNotNull();
        this.setRate = action(session.ui(), anySelected, () -> {
            double value = parseRate(rate.get());
            return name -> session.client().setDomainRate(name, value);
        }, "Rate set");
        this.setMinDelay = action(session.ui(), anySelected, () -> {
            long millis = parseDelayMillis(minDelay.get());
            return name -> session.client().setDomainMinDelay(name, millis);
        }, "Minimum delay set");
        this.reset = action(session.ui(), anySelected, () -> session.client()::resetDomain, "Reset");
        this.revive = action(session.ui(), revivable, () -> session.client()::reviveDomain, "Revived");
    }

    private Command action(UiExecutor ui, ObservableBooleanValue enabled,
                           Supplier<DomainAction> prepare, String done) {
        return Command.admin(ui, enabled, () -> {
            String domain = selected.get().domain();
            DomainAction action = prepare.get();
            return () -> {
                action.apply(domain);
                return domain;
            };
        }, domain -> {
            actionResult.set(done + ": " + domain);
            feed.refreshSoon();
        }, why -> actionResult.set("Failed: " + why.getMessage()));
    }

    /** Starts fetching the governor's state. */
    public void start() {
        feed.start();
    }

    public ObservableList<DomainRow> rows() {
        return rowsView;
    }

    public ObservableList<String> alerts() {
        return alertsView;
    }

    /** Selects a domain by name (the table's selection, keyboard users, tests). */
    public void select(String domain) {
        rows.stream().filter(r -> r.domain().equals(domain)).findFirst().ifPresent(this::select);
    }

    private void select(DomainRow row) {
        selected.set(row);
        selectedText.set(row == null ? "Select a domain" : row.domain() + "\n" + row.breaker() + " · " + row.rate()
                + (row.blocked().isEmpty() ? "" : "\n" + row.blocked()));
        revivable.set(row != null && row.view().givenUp());
    }

    public ReadOnlyObjectProperty<DomainRow> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty selectedTextProperty() {
        return selectedText.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty revivableProperty() {
        return revivable.getReadOnlyProperty();
    }

    /** The rate to set, as the operator types it (requests per second). */
    public StringProperty rateProperty() {
        return rate;
    }

    /** The minimum delay to set, as the operator types it (seconds; 0 removes it). */
    public StringProperty minDelayProperty() {
        return minDelay;
    }

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    public Command setRate() {
        return setRate;
    }

    public Command setMinDelay() {
        return setMinDelay;
    }

    public Command reset() {
        return reset;
    }

    public Command revive() {
        return revive;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public void update(GovernorSnapshot snapshot) {
        Instant now = snapshot.at();
        rows.setAll(snapshot.domains().stream().map(view -> row(view, now)).toList());
        alerts.setAll(snapshot.alerts().stream().map(DomainsViewModel::alertText).toList());
        long givenUp = snapshot.domains().stream().filter(DomainView::givenUp).count();
        long open = snapshot.domains().stream().filter(d -> d.breaker() != BreakerState.CLOSED).count();
        long blocked = snapshot.domains().stream().filter(d -> d.blockedUntil() != null).count();
        DomainRow was = selected.get();
        if (was != null) {
            // The selection follows its domain into the new rows.
            select(rows.stream().filter(r -> r.domain().equals(was.domain())).findFirst().orElse(was));
        }
        summary.set(snapshot.tracked() + " domain" + (snapshot.tracked() == 1 ? "" : "s") + " tracked · "
                + givenUp + " given up · " + open + " breaker" + (open == 1 ? "" : "s") + " not closed · "
                + blocked + " blocked");
    }

    static DomainRow row(DomainView view, Instant now) {
        String breaker = switch (view.breaker()) {
            case CLOSED -> "closed";
            case OPEN -> "OPEN";
            case HALF_OPEN -> "half-open (trials)";
        };
        return new DomainRow(view.domain(),
                // The pacer rounds its interval up to a microsecond: only a real delay is worth a mention.
                rateText(view.rate()) + (view.effectiveRate() < view.rate() * 0.99
                        ? " (" + rateText(view.effectiveRate()) + " after delays)" : ""),
                delayText(view),
                view.givenUp() ? "GIVEN UP" : breaker,
                view.errors60s() + " / " + view.calls60s(),
                blockedText(view, now),
                statusSummary(view.recentStatuses()),
                view.granted() + " granted, " + view.denied() + " waited",
                view.givenUp() || view.breaker() != BreakerState.CLOSED || view.blockedUntil() != null,
                view);
    }

    /** A rate as an operator reads it: "2.5/s" or, below one a second, "1 per 20 s". */
    static String rateText(double perSecond) {
        if (perSecond >= 1) {
            return String.format(Locale.ROOT, "%.2f/s", perSecond);
        }
        return String.format(Locale.ROOT, "1 per %.1f s", 1 / perSecond);
    }

    static String delayText(DomainView view) {
        if (view.minDelayMillis() == 0 && view.crawlDelayMillis() == 0) {
            return "none";
        }
        StringBuilder text = new StringBuilder();
        if (view.minDelayMillis() > 0) {
            text.append(seconds(view.minDelayMillis())).append(" (operator)");
        }
        if (view.crawlDelayMillis() > 0) {
            text.append(text.isEmpty() ? "" : ", ").append(seconds(view.crawlDelayMillis())).append(" (robots.txt)");
        }
        return text.toString();
    }

    static String blockedText(DomainView view, Instant now) {
        if (view.blockedUntil() == null || !view.blockedUntil().isAfter(now)) {
            return "";
        }
        String why = view.blockReason() == null ? "blocked" : switch (view.blockReason()) {
            case RETRY_AFTER -> "Retry-After";
            case BACKOFF -> "429 backoff (level " + view.backoffLevel() + ")";
            default -> view.blockReason().name();
        };
        return why + ", " + left(Duration.between(now, view.blockedUntil())) + " left";
    }

    /** The last statuses by frequency: "200×45 · 429×3 · 503×2"; 0 reads "no answer". */
    static String statusSummary(List<Integer> statuses) {
        Map<Integer, Long> counts = statuses.stream().collect(Collectors.groupingBy(Function.identity(),
                TreeMap::new, Collectors.counting()));
        return counts.entrySet().stream()
                .sorted(Map.Entry.<Integer, Long>comparingByValue().reversed())
                .map(e -> (e.getKey() == 0 ? "no answer" : e.getKey().toString()) + "×" + e.getValue())
                .collect(Collectors.joining(" · "));
    }

    static String alertText(GovernorAlert alert) {
        return CLOCK.format(alert.at()) + "  " + alert.domain() + ": " + alert.message();
    }

    /** The operator's rate, or an explanation of why it is not one. */
    static double parseRate(String text) {
        try {
            double value = Double.parseDouble(text.trim());
            if (!(value > 0)) {
                throw new IllegalArgumentException("the rate must be above 0 requests per second");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the rate must be a number of requests per second, e.g. 2.5");
        }
    }

    /** The operator's minimum delay in seconds (as typed), in milliseconds. */
    static long parseDelayMillis(String text) {
        try {
            double seconds = Double.parseDouble(text.trim());
            if (seconds < 0) {
                throw new IllegalArgumentException("the minimum delay must not be negative");
            }
            return Math.round(seconds * 1_000);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the minimum delay must be a number of seconds, e.g. 10 (0 removes it)");
        }
    }

    private static String seconds(long millis) {
        return millis % 1_000 == 0 ? millis / 1_000 + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1_000.0);
    }

    private static String left(Duration duration) {
        long seconds = Math.max(1, (duration.toMillis() + 999) / 1_000);
        return seconds < 60 ? seconds + " s" : seconds / 60 + " min " + seconds % 60 + " s";
    }
}
