package io.sluice.console.whatif;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.console.api.ShadowView;
import io.sluice.console.ui.Feed;
import io.sluice.console.ui.Session;
import io.sluice.console.ui.UiExecutor;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * What-if before Apply, for the limits room. <em>Preview</em> installs the edited policy as the server's shadow
 * policy: it decides nothing, but every request is also judged by it, and its report (read every second while
 * previewing, or now with {@link #refresh()}) shows how many requests and which clients it would refuse that the
 * live policy serves, browsers first, per rule. <em>Apply</em> promotes the shadow to live, with
 * {@code If-Match} on the live version the report was read against (a change made meanwhile to the same field is
 * a conflict, never overwritten). Leaving ({@link #dispose()}) removes the shadow. The report is read through a
 * {@link Feed} on the session's executor. No toolkit needed: properties change only on the UI executor (the FX
 * thread in the console, the calling thread in tests), the server is called off it.
 */
public final class WhatIfViewModel {
    /** The differing clients the report lists at most: enough to show who is hit, bounded for the wire. */
    static final int CLIENTS = 100;
    /** How often a running preview's report is read. */
    static final Duration POLL = Duration.ofSeconds(1);
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /** Where the preview stands. */
    public enum Phase {
        /** Nothing previewed. */
        IDLE,
        /** A call is under way (installing, promoting, removing). */
        BUSY,
        /** The shadow is installed and its report is read live. */
        PREVIEWING,
        /** The candidate was refused (field errors) or a call failed: nothing changed. */
        FAILED,
        /** The shadow was promoted: it is the live policy. */
        APPLIED
    }

    private final AdminClient client;
    private final UiExecutor ui;
    private final Feed<Optional<ShadowView>> report;

    private final ReadOnlyObjectWrapper<Phase> phase = new ReadOnlyObjectWrapper<>(Phase.IDLE);
    private final ReadOnlyStringWrapper headline = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(
            "Preview shows what the edited limits would refuse on live traffic, before Apply");
    private final ReadOnlyObjectWrapper<WhatIfSummary> summary = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Policy> applied = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyBooleanWrapper canApply = new ReadOnlyBooleanWrapper();
    private final ReadOnlyBooleanWrapper browsersHit = new ReadOnlyBooleanWrapper();
    private final ObservableList<WhatIfSummary.RuleRow> rules = FXCollections.observableArrayList();
    private final ObservableList<WhatIfSummary.ClientRow> clients = FXCollections.observableArrayList();
    private final ObservableList<FieldError> errors = FXCollections.observableArrayList();
    /** The shadow this console installed (its install time tells it from another operator's); UI thread only. */
    private ShadowView installed;
    private long liveVersion;
    private volatile boolean disposed;

    public WhatIfViewModel(Session session) {
        this.client = session.client();
        this.ui = session.ui();
        this.report = session.feed(() -> client.shadow(CLIENTS), POLL);
        report.subscribe(this::read, failure -> status.set("The report could not be read: " + failure.getMessage()));
    }

    public ReadOnlyObjectProperty<Phase> phaseProperty() {
        return phase.getReadOnlyProperty();
    }

    /** "3 requests from 2 clients (1 browser) would be refused that are served now". */
    public ReadOnlyStringProperty headlineProperty() {
        return headline.getReadOnlyProperty();
    }

    /** What is going on: since when the preview runs, against which live version; an outcome; an error. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    /** The last report, summed up; null before the first. */
    public ReadOnlyObjectProperty<WhatIfSummary> summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** The live policy Apply installed; null until then. */
    public ReadOnlyObjectProperty<Policy> appliedProperty() {
        return applied.getReadOnlyProperty();
    }

    /** Apply is possible: a preview of this console's runs. */
    public ReadOnlyBooleanProperty canApplyProperty() {
        return canApply.getReadOnlyProperty();
    }

    /** The candidate would refuse a browser (a person): the view makes it stand out. */
    public ReadOnlyBooleanProperty browsersHitProperty() {
        return browsersHit.getReadOnlyProperty();
    }

    /** The rules that would refuse more, most first. */
    public ObservableList<WhatIfSummary.RuleRow> rules() {
        return FXCollections.unmodifiableObservableList(rules);
    }

    /** The clients that would be refused more, browsers first. */
    public ObservableList<WhatIfSummary.ClientRow> clients() {
        return FXCollections.unmodifiableObservableList(clients);
    }

    /** Why the candidate was refused, by field (for the form to show beside each field). */
    public ObservableList<FieldError> errors() {
        return FXCollections.unmodifiableObservableList(errors);
    }

    /** Command: install {@code candidate} as the shadow policy (replacing this console's earlier preview). */
    public void preview(Policy candidate) {
        busy("Installing the preview…");
        ui.background(() -> {
            try {
                AdminClient.ShadowUpdate update = client.installShadow(candidate);
                ui.onUiThread(() -> {
                    if (disposed) {
                        ui.background(this::removeShadow); // the form was left while this was under way
                        return;
                    }
                    if (update.installed() == null) {
                        installed = null;
                        errors.setAll(update.errors());
                        fail("The edit was not previewed: " + update.errors().size() + " field"
                                + (update.errors().size() == 1 ? "" : "s") + " to fix");
                        return;
                    }
                    errors.clear();
                    installed = update.installed();
                    show(update.installed());
                });
            } catch (AdminException e) {
                ui.onUiThread(() -> fail("The preview failed: " + e.getMessage()));
            }
        });
    }

    /** Command: read the shadow's report now (it is read every second while previewing). */
    public void refresh() {
        if (phase.get() == Phase.PREVIEWING) {
            report.refreshSoon();
        }
    }

    /** A report read while previewing (on the UI executor). */
    private void read(Optional<ShadowView> now) {
        if (phase.get() != Phase.PREVIEWING) {
            return; // applied or stopped meanwhile
        }
        if (now.isEmpty() || !now.get().installedAt().equals(installed.installedAt())) {
            installed = null;
            canApply.set(false);
            enter(Phase.IDLE);
            status.set(now.isEmpty() ? "The preview is gone: removed on the server, or the server restarted"
                    : "Another operator replaced this preview with theirs: Preview again to see yours");
            return;
        }
        show(now.get());
    }

    /**
     * Command: make the previewed policy live, if the live policy is still the version the report was read
     * against; the server then removes the shadow.
     */
    public void apply() {
        if (phase.get() != Phase.PREVIEWING) {
            return;
        }
        long basedOn = liveVersion;
        busy("Applying…");
        ui.background(() -> {
            try {
                AdminClient.PolicyUpdate update = client.promoteShadow(basedOn);
                ui.onUiThread(() -> {
                    if (update.installed() != null) {
                        installed = null;
                        applied.set(update.installed());
                        enter(Phase.APPLIED);
                        status.set("Applied: policy version " + update.installed().version());
                    } else if (update.conflict()) {
                        enter(Phase.PREVIEWING);
                        canApply.set(true);
                        status.set("Not applied: the live policy changed meanwhile (another operator changed the "
                                + "same limits). Nothing changed; the preview goes on against the new version");
                    } else {
                        errors.setAll(update.errors());
                        enter(Phase.PREVIEWING);
                        canApply.set(true);
                        status.set("Not applied: the server refused the policy");
                    }
                });
            } catch (AdminException e) {
                ui.onUiThread(() -> fail("Not applied: " + e.getMessage()));
            }
        });
    }

    /**
     * Command: stop previewing and remove the shadow from the server (there is one shadow per server: this
     * removes it whoever installed it last).
     */
    public void stop() {
        if (phase.get() == Phase.IDLE || phase.get() == Phase.APPLIED) {
            return;
        }
        installed = null;
        canApply.set(false);
        enter(Phase.IDLE);
        status.set("Preview stopped");
        ui.background(this::removeShadow);
    }

    /** Leaving the form: the shadow is removed, so it does not go on counting for nobody. */
    public void dispose() {
        if (!disposed) {
            disposed = true;
            stop();
        }
    }

    private void removeShadow() {
        try {
            client.removeShadow();
        } catch (AdminException e) {
            ui.onUiThread(() -> status.set("The preview could not be removed: " + e.getMessage()));
        }
    }

    private void show(ShadowView view) {
        WhatIfSummary read = WhatIfSummary.of(view.report());
        liveVersion = view.liveVersion();
        summary.set(read);
        rules.setAll(read.rules());
        clients.setAll(read.clients());
        browsersHit.set(read.browsers() > 0);
        headline.set(headline(read));
        status.set("Previewing since " + CLOCK.format(view.installedAt()) + " against live policy version "
                + view.liveVersion() + ": " + read.requests() + " request" + (read.requests() == 1 ? "" : "s")
                + " judged by both" + (view.basedOnVersion() != view.liveVersion()
                ? " (the live policy changed since the preview started)" : ""));
        enter(Phase.PREVIEWING);
        canApply.set(true);
    }

    static String headline(WhatIfSummary read) {
        if (read.requests() == 0) {
            return "No request yet since the preview started";
        }
        String refused = read.refused() == 0 ? "Nothing served now would be refused"
                : read.refused() + " request" + (read.refused() == 1 ? "" : "s") + " from "
                + read.clients().size() + " client" + (read.clients().size() == 1 ? "" : "s")
                + (read.browsers() > 0 ? " (" + read.browsers() + " browser" + (read.browsers() == 1 ? "" : "s") + ")"
                : "") + " would be refused that are served now";
        return read.relieved() == 0 ? refused
                : refused + "; " + read.relieved() + " refused now would be served";
    }

    /** The preview's phase; the report is read while, and only while, previewing. */
    private void enter(Phase next) {
        phase.set(next);
        if (next == Phase.PREVIEWING) {
            report.start();
        } else {
            report.stop();
        }
    }

    private void busy(String text) {
        canApply.set(false);
        enter(Phase.BUSY);
        status.set(text);
    }

    private void fail(String text) {
        canApply.set(false);
        enter(Phase.FAILED);
        status.set(text);
    }
}
