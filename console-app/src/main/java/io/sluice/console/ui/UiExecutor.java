package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The one way console code leaves and returns to the UI thread (after JabRef's {@code TaskExecutor}): blocking
 * admin calls run on background threads, their outcome is handed to the UI thread. Injected everywhere, so a
 * ViewModel and its commands run in a test on {@link CurrentThreadUiExecutor}, without the toolkit; the console
 * itself uses {@link FxUiExecutor}.
 */
public interface UiExecutor extends AutoCloseable {

    /** One blocking call, typically to the admin API. */
    @FunctionalInterface
    interface Work<T> {
        T call() throws AdminException;
    }

    /**
     * Runs {@code work} off the UI thread, then exactly one of {@code onDone} and {@code onFailure} on the UI
     * thread. A runtime exception of the work is reported as a {@link AdminException.Kind#PROTOCOL} failure.
     */
    <T> void run(Work<T> work, Consumer<? super T> onDone, Consumer<? super AdminException> onFailure);

    /** Runs {@code action} on the UI thread, soon; never blocks the caller. */
    void onUiThread(Runnable action);

    /** Runs {@code work} off the UI thread at once and then every {@code period}, until the handle is closed. */
    Periodic every(Duration period, Runnable work);

    /** Runs {@code work} off the UI thread once, soon (no hand-over: the work hands over what it needs). */
    void background(Runnable work);

    /** Stops the background threads; work handed in afterwards is dropped. */
    @Override
    void close();

    /** A periodic job; closing it stops it. */
    interface Periodic extends AutoCloseable {
        @Override
        void close();
    }

    /** What a runtime exception of a work item becomes, so a bug is shown rather than lost on a pool thread. */
    static AdminException failure(RuntimeException e) {
        return new AdminException(AdminException.Kind.PROTOCOL, e.toString());
    }
}
