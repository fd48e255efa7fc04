package io.sluice.console.shell;

import io.sluice.console.api.AdminException;
import io.sluice.console.ui.Command;
import io.sluice.console.ui.Session;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.util.Locale;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * The top bar: which server, as whom, how the connection stands (a changed certificate unmistakably), the policy
 * version, a banner while anything is paused, pause and resume, and the browser check's mode. No toolkit needed.
 */
public final class ShellViewModel {
    private final Session session;
    private final ReadOnlyObjectWrapper<ConnectionState> state = new ReadOnlyObjectWrapper<>(
            ConnectionState.CONNECTING);
    private final ReadOnlyStringWrapper connection = new ReadOnlyStringWrapper();
    private final ReadOnlyStringWrapper policyVersion = new ReadOnlyStringWrapper("-");
    private final ReadOnlyBooleanWrapper paused = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper pauseBanner = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper actionResult = new ReadOnlyStringWrapper("");
    private final ObjectProperty<PauseScope> scope = new SimpleObjectProperty<>(PauseScope.WHOLE_SERVICE);
    private final Command pause;
    private final Command resume;
    private final Command switchServer;
    private final ReadOnlyStringWrapper browserCheck = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper underPressure = new ReadOnlyBooleanWrapper();
    private final ReadOnlyObjectWrapper<BrowserCheck.Mode> liveCheckMode = new ReadOnlyObjectWrapper<>();
    private final ObjectProperty<BrowserCheck.Mode> checkMode = new SimpleObjectProperty<>();
    private final Command applyCheckMode;

    /** @param switchServer what "Switch server" does: close this session and show the connect room */
    public ShellViewModel(Session session, Runnable switchServer) {
        this.session = session;
        connection.set("Connecting to " + where() + "…");
        this.pause = pauseCommand(true);
        this.resume = pauseCommand(false);
        this.switchServer = Command.local(switchServer);
        this.applyCheckMode = checkModeCommand();
        session.snapshots().subscribe(this::apply, this::failed);
    }

    private Command pauseCommand(boolean pausing) {
        return Command.admin(session.ui(), scope.isNotNull(), () -> {
            PauseScope what = scope.get();
            return () -> {
                session.client().pause(pausing, what.only());
                return what;
            };
        }, what -> {
            actionResult.set((pausing ? "Paused " : "Resumed ") + what);
            session.snapshots().refreshSoon();
        }, why -> actionResult.set("Failed: " + why.getMessage()));
    }

    /** Sets the chosen mode for the whole site: one action, audited, drawn on the rate chart. */
    private Command checkModeCommand() {
        return Command.admin(session.ui(), checkMode.isNotNull().and(checkMode.isNotEqualTo(liveCheckMode)), () -> {
            BrowserCheck.Mode mode = checkMode.get();
            return () -> session.client().browserCheckMode(mode);
        }, after -> {
            actionResult.set("Browser check " + label(after.mode()));
            session.snapshots().refreshSoon();
        }, why -> actionResult.set("Failed: " + why.getMessage()));
    }

    private static String label(BrowserCheck.Mode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    private String where() {
        return session.serverName() + " as " + session.tokenName();
    }

    void apply(Snapshot latest) {
        state.set(ConnectionState.CONNECTED);
        connection.set("Connected to " + where()
                + (latest.cluster().node() == null ? "" : " (node " + latest.cluster().node() + ")"));
        policyVersion.set("policy v" + latest.policyVersion());
        paused.set(latest.pause().all() || !latest.pause().classes().isEmpty());
        pauseBanner.set(latest.pause().all() ? "SERVICE PAUSED"
                : latest.pause().classes().isEmpty() ? "" : "PAUSED: " + String.join(", ",
                        latest.pause().classes().stream().map(Enum::name).toList()));
        BrowserCheckCounts check = latest.browserCheck();
        if (check != null) {
            boolean followsLive = checkMode.get() == null || checkMode.get() == liveCheckMode.get();
            liveCheckMode.set(check.mode());
            if (followsLive) {
                checkMode.set(check.mode());
            }
            underPressure.set(check.underPressure());
            browserCheck.set("Check " + label(check.mode()) + (check.underPressure() ? ", under pressure" : "")
                    + ": " + check.challenged() + " asked, " + (check.passesEarned() + check.weakPassesEarned())
                    + " passed, " + check.passesInUse() + " in use");
        }
    }

    /** A failed fetch: say why, keep the last data visible. */
    void failed(AdminException failure) {
        switch (failure.kind()) {
            case UNAUTHORISED -> {
                state.set(ConnectionState.UNAUTHORISED);
                connection.set("Wrong token: " + session.serverName() + " refused " + session.tokenName());
            }
            case UNREACHABLE -> {
                state.set(ConnectionState.UNREACHABLE);
                connection.set("Unreachable, retrying: " + session.serverName());
            }
            // Mid-session, a certificate that is not the trusted one is refused the same way, whatever its kind.
            case CERTIFICATE_CHANGED, CERTIFICATE_UNKNOWN, CERTIFICATE_WRONG_HOST -> {
                state.set(ConnectionState.CERTIFICATE_CHANGED);
                connection.set("REFUSED: " + failure.getMessage());
            }
            default -> {
                state.set(ConnectionState.ERROR);
                connection.set("Error: " + failure.getMessage());
            }
        }
    }

    public ReadOnlyObjectProperty<ConnectionState> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty connectionProperty() {
        return connection.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty policyVersionProperty() {
        return policyVersion.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty pausedProperty() {
        return paused.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty pauseBannerProperty() {
        return pauseBanner.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty actionResultProperty() {
        return actionResult.getReadOnlyProperty();
    }

    /** What Pause and Resume apply to. */
    public ObjectProperty<PauseScope> scopeProperty() {
        return scope;
    }

    /** Pauses the chosen scope (the view asks for a confirmation first). */
    public Command pause() {
        return pause;
    }

    public Command resume() {
        return resume;
    }

    /** The browser check in a line: its mode, whether the site is under pressure, asked and passed. */
    public ReadOnlyStringProperty browserCheckProperty() {
        return browserCheck.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty underPressureProperty() {
        return underPressure.getReadOnlyProperty();
    }

    /** The mode to set; follows the live one until the operator picks another. */
    public ObjectProperty<BrowserCheck.Mode> checkModeProperty() {
        return checkMode;
    }

    /** Sets the chosen mode (enabled while it differs from the live one). */
    public Command applyCheckMode() {
        return applyCheckMode;
    }

    public Command switchServer() {
        return switchServer;
    }
}
