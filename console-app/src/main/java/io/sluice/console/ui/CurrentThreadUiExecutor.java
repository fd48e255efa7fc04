package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A {@link UiExecutor} for tests: everything runs at once on the calling thread, and periodic work runs when
 * the test calls {@link #tick()}, so a ViewModel, its commands and its feeds are tested without the toolkit,
 * threads or sleeps.
 */
public final class CurrentThreadUiExecutor implements UiExecutor {
    private final List<Runnable> periodic = new ArrayList<>();
    private boolean closed;

    @Override
    public <T> void run(Work<T> work, Consumer<? super T> onDone, Consumer<? super AdminException> onFailure) {
        if (closed) {
            return;
        }
        T result;
        try {
            result = work.call();
        } catch (AdminException e) {
            onFailure.accept(e);
            return;
        } catch (RuntimeException e) {
            onFailure.accept(UiExecutor.failure(e));
            return;
        }
        onDone.accept(result);
    }

    @Override
    public void onUiThread(Runnable action) {
        if (!closed) {
            action.run();
        }
    }

    /** Does not run {@code work} now: {@link #tick()} runs every periodic job once. */
    @Override
    public Periodic every(Duration period, Runnable work) {
        periodic.add(work);
        return () -> periodic.remove(work);
    }

    @Override
    public void background(Runnable work) {
        if (!closed) {
            work.run();
        }
    }

    /** One period: every periodic job runs once, in the order they were started. */
    public void tick() {
        if (!closed) {
            List.copyOf(periodic).forEach(Runnable::run);
        }
    }

    @Override
    public void close() {
        closed = true;
        periodic.clear();
    }
}
