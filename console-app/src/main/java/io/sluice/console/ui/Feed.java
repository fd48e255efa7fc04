package io.sluice.console.ui;

import io.sluice.console.api.AdminException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A value fetched on a schedule (the snapshot, the governor's domains, the fleet) and handed to every subscriber on
 * the UI thread. Only the newest result is ever handed over and at most one hand-over is queued at a time (a dirty
 * flag swapped with {@code getAndSet}, as OpenJFX's {@code Task.updateMessage}), so a slow UI never builds a
 * backlog and the UI thread never waits for the network. A failure is handed over like a value; the next fetch
 * simply tries again, which is the reconnection.
 *
 * <p>The server is never asked twice at once by one feed: a fetch asked for while one is under way (a refresh
 * after an action, or the schedule catching up with a slow server) is made once, right after it, by the thread
 * that made the first, so results come in the order they were fetched. A room that needs its figures only while
 * it is seen {@link #start()}s its feed when shown and {@link #stop()}s it when left.
 */
public final class Feed<T> implements AutoCloseable {
    private final UiExecutor.Work<T> source;
    private final Duration period;
    private final UiExecutor ui;
    private final List<Subscriber<T>> subscribers = new CopyOnWriteArrayList<>();
    private final AtomicLong fetches = new AtomicLong();
    private final AtomicReference<Result<T>> latest = new AtomicReference<>();
    private final AtomicBoolean handOverQueued = new AtomicBoolean();
    /** Fetches asked for and not yet made; the thread that takes it from 0 makes them (one after the other). */
    private final AtomicInteger asked = new AtomicInteger();
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

    /** Starts fetching: one fetch at once, then one per period; started already, nothing changes. */
    public void start() {
        if (schedule == null) {
            schedule = ui.every(period, this::fetch);
        }
    }

    /** Stops the schedule (the room was left); subscribers stay, and {@link #start()} fetches again. */
    public void stop() {
        UiExecutor.Periodic running = schedule;
        schedule = null;
        if (running != null) {
            running.close();
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
        if (asked.getAndIncrement() != 0) {
            return; // one is under way: its thread makes one more after it
        }
        int answering = 1;
        do {
            fetchOnce();
            // the asks that came meanwhile (any number) are answered together by the next fetch
            answering = asked.addAndGet(-answering);
        } while (answering != 0);
    }

    private void fetchOnce() {
        long sequence = fetches.incrementAndGet();
        Result<T> result;
        try {
            result = new Result<>(sequence, source.call(), null);
        } catch (AdminException e) {
            result = new Result<>(sequence, null, e);
        } catch (RuntimeException e) {
            result = new Result<>(sequence, null, UiExecutor.failure(e));
        }
        latest.set(result); // fetches are made one after the other: this is the newest
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
        stop();
        subscribers.clear();
    }
}
