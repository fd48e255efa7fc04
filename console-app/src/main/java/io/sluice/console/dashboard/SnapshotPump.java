package io.sluice.console.dashboard;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Fetches a value (a snapshot, the governor's domains) on a schedule on a background thread and hands
 * only the newest to the UI thread:
 * at most one hand-over is queued at a time (a dirty flag swapped with {@code getAndSet}), so a slow UI
 * never builds a backlog and the UI thread never blocks on the network. A failure is reported, and the
 * next tick simply tries again, which is the reconnection.
 */
public final class SnapshotPump<T> implements AutoCloseable {
    /** One blocking call to the admin API. */
    public interface Fetch<T> {
        T fetch() throws AdminException;
    }

    private final Fetch<T> source;
    private final Duration period;
    private final Class<T> type;
    private final Consumer<Runnable> uiThread;
    private final Consumer<T> onValue;
    private final Consumer<AdminException> onFailure;
    private final AtomicReference<Object> latest = new AtomicReference<>();
    private final AtomicBoolean handOverQueued = new AtomicBoolean();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "sluice-console-snapshots");
        thread.setDaemon(true);
        return thread;
    });

    public SnapshotPump(Class<T> type, Fetch<T> source, Duration period, Consumer<Runnable> uiThread,
                        Consumer<T> onValue, Consumer<AdminException> onFailure) {
        this.type = type;
        this.source = source;
        this.period = period;
        this.uiThread = uiThread;
        this.onValue = onValue;
        this.onFailure = onFailure;
    }

    /** The console's live view: the engine's snapshot every second. */
    public static SnapshotPump<Snapshot> snapshots(AdminClient client, Consumer<Runnable> uiThread,
            Consumer<Snapshot> onSnapshot, Consumer<AdminException> onFailure) {
        return new SnapshotPump<>(Snapshot.class, client::snapshot, Duration.ofSeconds(1), uiThread, onSnapshot,
                onFailure);
    }

    public void start() {
        timer.scheduleWithFixedDelay(this::fetch, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * One fetch now, off the schedule (after an action, so its effect shows at once). An action can finish after
     * its view was closed; the refresh it asks for then has nothing to show and is dropped.
     */
    public void refreshSoon() {
        try {
            timer.execute(this::fetch);
        } catch (RejectedExecutionException closed) {
            // closed: nothing left to refresh
        }
    }

    void fetch() {
        Object result;
        try {
            result = source.fetch();
        } catch (AdminException e) {
            result = e;
        } catch (RuntimeException e) {
            result = new AdminException(AdminException.Kind.PROTOCOL, e.toString());
        }
        latest.set(result);
        if (!handOverQueued.getAndSet(true)) {
            uiThread.accept(this::handOver);
        }
    }

    private void handOver() {
        handOverQueued.set(false);
        Object newest = latest.get();
        if (type.isInstance(newest)) {
            onValue.accept(type.cast(newest));
        } else if (newest instanceof AdminException failure) {
            onFailure.accept(failure);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
