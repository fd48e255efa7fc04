package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.value.ObservableBooleanValue;

/**
 * Something an operator can do from a room: a button binds its {@code disable} to {@link #executableProperty()}
 * and its action to {@link #execute()}. An admin command prepares its call on the UI thread (reading and checking
 * the operator's input: an {@link IllegalArgumentException} there is reported and nothing is sent), runs it
 * through the {@link UiExecutor}, and reports the outcome; it is not executable while it runs, so a double click
 * sends one request.
 */
public final class Command {
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper();
    private final BooleanBinding executable;
    private final Runnable action;

    private Command(ObservableBooleanValue enabled, Consumer<Command> body) {
        this.executable = Bindings.createBooleanBinding(() -> enabled.get() && !running.get(), enabled, running);
        this.action = () -> body.accept(this);
    }

    /** A command that runs on the UI thread at once (no server call). */
    public static Command local(ObservableBooleanValue enabled, Runnable body) {
        return new Command(enabled, c -> body.run());
    }

    /** A command that is always executable and runs on the UI thread at once. */
    public static Command local(Runnable body) {
        return local(new ReadOnlyBooleanWrapper(true), body);
    }

    /**
     * A command that makes one admin call.
     *
     * @param prepare reads the input and returns the call; throws {@link IllegalArgumentException} with a
     *                message for the operator when the input is not usable
     * @param onDone  the call's result, on the UI thread
     * @param onFailure why it failed, on the UI thread: the server's answer, or unusable input as
     *                  {@link AdminException.Kind#REJECTED} (nothing was sent then)
     */
    public static <T> Command admin(UiExecutor ui, ObservableBooleanValue enabled, Supplier<UiExecutor.Work<T>> prepare,
                                    Consumer<? super T> onDone, Consumer<? super AdminException> onFailure) {
        return new Command(enabled, self -> {
            UiExecutor.Work<T> work;
            try {
                work = prepare.get();
            } catch (IllegalArgumentException e) {
                onFailure.accept(new AdminException(AdminException.Kind.REJECTED, e.getMessage()));
                return;
            }
            self.running.set(true);
            ui.run(work, result -> {
                self.running.set(false);
                onDone.accept(result);
            }, failure -> {
                self.running.set(false);
                onFailure.accept(failure);
            });
        });
    }

    /** Does it, if it is executable now. */
    public void execute() {
        if (executable.get()) {
            action.run();
        }
    }

    public BooleanBinding executableProperty() {
        return executable;
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }
}
