package io.sluice.console.dashboard;

import io.sluice.console.api.AdminClient;
import io.sluice.console.api.AdminException;
import io.sluice.engine.telemetry.Snapshot;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Fetches a snapshot every second on a background thread and hands only the newest to the UI thread:
 * at most one hand-over is queued at a time (a dirty flag swapped with {@code getAndSet}), so a slow UI
 * never builds a backlog and the UI thread never blocks on the network. A failure is reported, and the
 * next tick simply tries again, which is the reconnection.
 */
public final class SnapshotPump implements AutoCloseable {
    private final AdminClient client;
    private final Consumer<Runnable> uiThread;
    private final Consumer<Snapshot> onSnapshot;
    private final Consumer<AdminException> onFailure;
    private final AtomicReference<Object> latest = new AtomicReference<>();
    private final AtomicBoolean handOverQueued = new AtomicBoolean();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "sluice-console-snapshots");
        thread.setDaemon(true);
        return thread;
    });

    public SnapshotPump(AdminClient client, Consumer<Runnable> uiThread, Consumer<Snapshot> onSnapshot,
                        Consumer<AdminException> onFailure) {
        this.client = client;
        this.uiThread = uiThread;
        this.onSnapshot = onSnapshot;
        this.onFailure = onFailure;
    }

    public void start() {
        timer.scheduleWithFixedDelay(this::fetch, 0, 1, TimeUnit.SECONDS);
    }

    /** One fetch now, off the schedule (after an action, so its effect shows at once). */
    public void refreshSoon() {
        timer.execute(this::fetch);
    }

    void fetch() {
        Object result;
        try {
            result = client.snapshot();
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
        if (newest instanceof Snapshot snapshot) {
            onSnapshot.accept(snapshot);
        } else if (newest instanceof AdminException failure) {
            onFailure.accept(failure);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
