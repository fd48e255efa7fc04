package io.sluice.console.bans;

import io.sluice.console.ui.Session;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/** The bans in force, each in words with its time left, and Unban. No toolkit needed. */
public final class BansViewModel {
    private final Session session;
    private final ObservableList<BanRow> bans = FXCollections.observableArrayList();
    private final ObservableList<BanRow> bansView = FXCollections.unmodifiableObservableList(bans);
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("No bans");

    /** One line of the list. */
    public record BanRow(Ban ban, String text) {
    }

    public BansViewModel(Session session) {
        this.session = session;
        session.snapshots().subscribe(this::apply, failure -> { });
    }

    void apply(Snapshot latest) {
        Instant now = session.clock().instant();
        bans.setAll(latest.bans().stream().map(ban -> new BanRow(ban, text(ban, now))).toList());
        summary.set(bans.isEmpty() ? "No bans" : bans.size() + (bans.size() == 1 ? " ban" : " bans") + " in force");
    }

    static String text(Ban ban, Instant now) {
        return ban.type().name().toLowerCase(Locale.ROOT) + " " + ban.value() + "   —  " + timeLeft(ban, now)
                + "   reason: " + ban.reason() + "   by " + ban.author();
    }

    /** Removes {@code ban}; the list shows it gone with the next snapshot, fetched at once. */
    public void unban(Ban ban) {
        session.ui().run(() -> {
            session.client().unban(ban.id());
            return ban;
        }, done -> {
            actionResult.set("Unbanned " + ban.value());
            session.snapshots().refreshSoon();
        }, failure -> actionResult.set("Failed: " + failure.getMessage()));
    }

    /** "12m left", "permanent", or "expired". */
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

    public ObservableList<BanRow> bans() {
        return bansView;
    }

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }
}
