package io.sluice.console.agents;

import io.sluice.console.api.AdminClient;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.Snapshot;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The live room's agents view: a row per category with the action the live policy gives it and the counts of the
 * agents seen in it ({@link AgentsModel}), a row per agent with its own counts, and a line on robots.txt and the
 * trap. Its one action is the "one action per row": choosing another action for a category sends the live
 * policy with that rule changed ({@code PUT /api/v1/policy}, with the version it was based on), audited like any
 * policy change. Fed by the session's snapshots; the policy is read again whenever a snapshot shows a newer version,
 * so the actions shown follow another operator's edits. No toolkit needed.
 */
public final class AgentsViewModel {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final Session session;
    private final ReadOnlyObjectWrapper<Snapshot> snapshot = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Policy> policy = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<List<AgentsModel.CategoryRow>> categories =
            new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyObjectWrapper<List<AgentRow>> agents = new ReadOnlyObjectWrapper<>(List.of());
    private final ReadOnlyStringWrapper robots = new ReadOnlyStringWrapper("robots.txt: -");
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper sending = new ReadOnlyBooleanWrapper();
    /** A policy read is under way: a snapshot meanwhile does not start another. */
    private boolean loading;

    public AgentsViewModel(Session session) {
        this.session = session;
        session.snapshots().subscribe(this::apply, failure -> { });
    }

    /** A new snapshot: its agents under the policy held, and the policy read again when the snapshot's is newer. */
    public void apply(Snapshot latest) {
        snapshot.set(latest);
        Policy held = policy.get();
        if (held == null || latest.policyVersion() > held.version()) {
            loadPolicy();
        }
        refresh();
    }

    private void loadPolicy() {
        if (loading) {
            return;
        }
        loading = true;
        session.ui().run(session.client()::policy, loaded -> {
            loading = false;
            policy.set(loaded);
            refresh();
        }, why -> {
            loading = false;
            actionResult.set("Cannot read the policy: " + why.getMessage());
        });
    }

    private void refresh() {
        Snapshot latest = snapshot.get();
        Policy held = policy.get();
        AgentsView view = latest == null ? null : latest.agents();
        agents.set(view == null ? List.of() : view.agents());
        robots.set(describe(view));
        // Until the policy is read, no action is shown: a guessed one could be sent back by a choice.
        categories.set(held == null ? List.of() : AgentsModel.rows(latest, held));
    }

    /** "robots.txt read 12:03:04 UTC, 3 groups; trap fetched 2 times, 1 address marked". */
    static String describe(AgentsView view) {
        if (view == null) {
            return "robots.txt: this server does not report agents";
        }
        String robots = view.robotsReadAt() == null ? "robots.txt not read from the upstream yet"
                : "robots.txt read " + TIME.format(view.robotsReadAt()) + ", " + view.robotsGroups()
                        + (view.robotsGroups() == 1 ? " group" : " groups");
        return robots + "; trap fetched " + view.trapFetches() + (view.trapFetches() == 1 ? " time, " : " times, ")
                + view.trapMarked() + (view.trapMarked() == 1 ? " address" : " addresses") + " marked now";
    }

    /**
     * Sends the live policy with {@code category}'s action set to {@code action} (the rest of its rule kept), based on
     * the version read. The server merges it with changes made meanwhile to other fields; one made meanwhile to the
     * same field is not overwritten: the server refuses the choice, the policy is read again and the operator chooses
     * again.
     */
    public void setAction(Category category, Agents.Action action) {
        Policy base = policy.get();
        if (base == null || sending.get() || action == null || base.agents().rule(category).action() == action) {
            return;
        }
        Policy proposed = AgentsModel.withAction(base, category, action);
        String what = category.wire() + ": " + action.name().toLowerCase(Locale.ROOT);
        sending.set(true);
        session.ui().run(() -> session.client().putPolicy(proposed, base.version()), result -> {
            sending.set(false);
            applied(what, result);
        }, why -> {
            sending.set(false);
            actionResult.set("Failed: " + why.getMessage());
            refresh(); // the row's choice goes back to the action in force
        });
    }

    private void applied(String what, AdminClient.PolicyUpdate result) {
        if (result.installed() != null) {
            policy.set(result.installed());
            actionResult.set(what + " (policy version " + result.installed().version() + ")");
            session.snapshots().refreshSoon();
        } else if (result.conflict()) {
            actionResult.set("Not applied: someone else changed the policy meanwhile; choose again");
            loadPolicy();
        } else {
            actionResult.set("Not applied: " + errors(result.errors()));
        }
        refresh();
    }

    /** Every category, in order, with its action under the live policy; empty until the policy is read. */
    public ReadOnlyObjectProperty<List<AgentsModel.CategoryRow>> categoriesProperty() {
        return categories.getReadOnlyProperty();
    }

    /** The named agents seen, most requests first, as the snapshot carries them. */
    public ReadOnlyObjectProperty<List<AgentRow>> agentsProperty() {
        return agents.getReadOnlyProperty();
    }

    /** The line on the upstream's robots.txt and the trap. */
    public ReadOnlyStringProperty robotsProperty() {
        return robots.getReadOnlyProperty();
    }

    /** What the last action did, or why it did not. */
    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    /** True while an action is being sent: the choices wait. */
    public ReadOnlyBooleanProperty sendingProperty() {
        return sending.getReadOnlyProperty();
    }

    /** The live policy as last read; null before. */
    public ReadOnlyObjectProperty<Policy> policyProperty() {
        return policy.getReadOnlyProperty();
    }

    /** The server's reasons, in words. */
    private static String errors(List<FieldError> errors) {
        return errors.stream().map(error -> error.field() + " " + error.message()).collect(Collectors.joining("; "));
    }
}
