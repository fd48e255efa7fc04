package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A value fetched on a schedule (the snapshot, the governor's domains) and handed to every subscriber on the UI
 * thread. Only the newest result is ever handed over and at most one hand-over is queued at a time (a dirty flag
 * swapped with {@code getAndSet}, as OpenJFX's {@code Task.updateMessage}), so a slow UI never builds a backlog
 * and the UI thread never waits for the network. A result older than one already fetched (an extra fetch after an
 * action can overtake the scheduled one) is dropped. A failure is handed over like a value; the next fetch
 * simply tries again, which is the reconnection.
 */
public final class Feed<T> implements AutoCloseable {
    private final UiExecutor.Work<T> source;
    private final Duration period;
    private final UiExecutor ui;
    private final List<Subscriber<T>> subscribers = new CopyOnWriteArrayList<>();
    private final AtomicLong fetches = new AtomicLong();
    private final AtomicReference<Result<T>> latest = new AtomicReference<>();
    private final AtomicBoolean handOverQueued = new AtomicBoolean();
    private volatile UiExecutor.Periodic schedule;
    private volatile T lastValue;
    /** The sequence of the result last handed over; read and written on the UI thread only. */
    private long handedOver;

    private record Subscriber<T>(Consumer<? super T> onValue, Consumer<? super AdminException> onFailure) {
    }

    /** A fetch's outcome, numbered in the order the fetches started. */
    private record Result<T>(long sequence, T value, AdminException failure) {
    }

    public Feed(UiExecutor.Work<T> source, Duration period, UiExecutor ui) {
        this.source = source;
        this.period = period;
        this.ui = ui;
    }

    /** Tells {@code onValue} every new value, {@code onFailure} every failed fetch; both on the UI thread. */
    public void subscribe(Consumer<? super T> onValue, Consumer<? super AdminException> onFailure) {
        subscribers.add(new Subscriber<>(onValue, onFailure));
    }

    /** Starts fetching: one fetch at once, then one per period. */
    public void start() {
        if (schedule == null) {
            schedule = ui.every(period, this::fetch);
        }
    }

    /** One fetch now, off the schedule (after an action, so its effect shows at once). */
    public void refreshSoon() {
        ui.background(this::fetch);
    }

    /** The newest value handed over, or null before the first. */
    public T lastValue() {
        return lastValue;
    }

    void fetch() {
        long sequence = fetches.incrementAndGet();
        Result<T> result;
        try {
            result = new Result<>(sequence, source.call(), null);
        } catch (AdminException e) {
            result = new Result<>(sequence, null, e);
        } catch (RuntimeException e) {
            result = new Result<>(sequence, null, UiExecutor.failure(e));
        }
        Result<T> fetched = result;
        latest.accumulateAndGet(fetched, (was, now) -> was == null || now.sequence() > was.sequence() ? now : was);
        if (!handOverQueued.getAndSet(true)) {
            ui.onUiThread(this::handOver);
        }
    }

    private void handOver() {
        handOverQueued.set(false);
        Result<T> newest = latest.get();
        if (newest == null || newest.sequence() <= handedOver) {
            return;
        }
        handedOver = newest.sequence();
        if (newest.failure() != null) {
            subscribers.forEach(s -> s.onFailure().accept(newest.failure()));
        } else {
            lastValue = newest.value();
            subscribers.forEach(s -> s.onValue().accept(newest.value()));
        }
    }

    @Override
    public void close() {
        if (schedule != null) {
            schedule.close();
        }
        subscribers.clear();
    }
}
