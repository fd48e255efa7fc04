package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javafx.application.Platform;

/**
 * The console's {@link UiExecutor}: a small pool of daemon threads for admin calls, one timer thread for
 * periodic fetches, and {@link Platform#runLater} back to the FX thread. After {@link #close()} nothing new
 * runs and late results are dropped, so a room closed while a call is in flight is never touched again.
 */
public final class FxUiExecutor implements UiExecutor {
    private final ExecutorService calls = Executors.newFixedThreadPool(4, threads("sluice-console-call"));
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            threads("sluice-console-timer"));
    private volatile boolean closed;

    private static ThreadFactory threads(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread thread = new Thread(r, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public <T> void run(Work<T> work, Consumer<? super T> onDone, Consumer<? super AdminException> onFailure) {
        background(() -> {
            try {
                T result = work.call();
                onUiThread(() -> onDone.accept(result));
            } catch (AdminException e) {
                onUiThread(() -> onFailure.accept(e));
            } catch (RuntimeException e) {
                onUiThread(() -> onFailure.accept(UiExecutor.failure(e)));
            }
        });
    }

    @Override
    public void onUiThread(Runnable action) {
        if (!closed) {
            Platform.runLater(() -> {
                if (!closed) {
                    action.run();
                }
            });
        }
    }

    @Override
    public Periodic every(Duration period, Runnable work) {
        try {
            ScheduledFuture<?> job = timer.scheduleWithFixedDelay(work, 0, period.toMillis(), TimeUnit.MILLISECONDS);
            return () -> job.cancel(false);
        } catch (RejectedExecutionException e) {
            return () -> { };
        }
    }

    @Override
    public void background(Runnable work) {
        try {
            calls.execute(work);
        } catch (RejectedExecutionException closedAlready) {
            // closed: nothing left to do it for
        }
    }

    @Override
    public void close() {
        closed = true;
        calls.shutdownNow();
        timer.shutdownNow();
    }
}
