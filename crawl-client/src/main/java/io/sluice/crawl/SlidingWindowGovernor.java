package io.sluice.crawl;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The local governor a worker embeds in front of a rate-limited API: at most {@code maxRequests}
 * started in any sliding window of {@code window} (start times, not fixed buckets), at most
 * {@code maxActive} running at once, the rest waiting in a FIFO queue that {@link #poll()} drains
 * (every {@code pollInterval} once {@link #startPolling()} is called; tests call it by hand).
 */
public final class SlidingWindowGovernor implements AutoCloseable {

    /**
     * @param maxRequests  starts allowed in any window
     * @param window       the sliding window
     * @param maxActive    tasks running at once
     * @param maxQueued    tasks waiting at most; more are rejected
     * @param pollInterval how often the queue is looked at
     */
    public record Limits(int maxRequests, Duration window, int maxActive, int maxQueued, Duration pollInterval) {
        public Limits {
            if (maxRequests < 1 || maxActive < 1 || maxQueued < 0) {
                throw new IllegalArgumentException("maxRequests and maxActive must be at least 1, maxQueued 0");
            }
            if (window.isNegative() || window.isZero() || pollInterval.isNegative() || pollInterval.isZero()) {
                throw new IllegalArgumentException("window and pollInterval must be positive");
            }
        }
    }

    private record Task<T>(Callable<T> work, CompletableFuture<T> result) {
        void run() {
            try {
                result.complete(work.call());
            } catch (Throwable failure) {
                result.completeExceptionally(failure);
            }
        }
    }

    private final Limits limits;
    private final InstantSource clock;
    private final Executor runner;
    private final Deque<Instant> starts = new ArrayDeque<>();
    private final Deque<Task<?>> queue = new ArrayDeque<>();
    private int active;
    private boolean suspended;
    private ScheduledExecutorService poller;
    private ExecutorService ownRunner;

    /** @param runner where tasks run; each holds an active place until it returns */
    public SlidingWindowGovernor(Limits limits, InstantSource clock, Executor runner) {
        this.limits = limits;
        this.clock = clock;
        this.runner = runner;
    }

    /** A governor on the system clock, running tasks on its own daemon threads, polling on its own. */
    public static SlidingWindowGovernor started(Limits limits) {
        ExecutorService threads = Executors.newCachedThreadPool(daemon("sluice-crawl-task"));
        SlidingWindowGovernor governor = new SlidingWindowGovernor(limits, InstantSource.system(), threads);
        governor.ownRunner = threads;
        governor.startPolling();
        return governor;
    }

    /** Polls every {@code pollInterval} on a daemon thread until {@link #close()}. */
    public synchronized void startPolling() {
        if (poller == null) {
            poller = Executors.newSingleThreadScheduledExecutor(daemon("sluice-crawl-governor"));
            long every = limits.pollInterval().toNanos();
            poller.scheduleAtFixedRate(this::poll, every, every, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Queues {@code work}; the future completes with its result once it has run.
     *
     * @throws RejectedExecutionException when the queue is full
     */
    public synchronized <T> CompletableFuture<T> submit(Callable<T> work) {
        if (queue.size() >= limits.maxQueued()) {
            throw new RejectedExecutionException("the queue is full (" + limits.maxQueued() + " waiting)");
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        queue.addLast(new Task<>(work, result));
        return result;
    }

    /** Starts, in order, every queued task the limits allow now; returns how many it started. */
    public int poll() {
        int started = 0;
        while (true) {
            Task<?> task;
            synchronized (this) {
                Instant now = clock.instant();
                while (!starts.isEmpty() && !starts.peekFirst().plus(limits.window()).isAfter(now)) {
                    starts.removeFirst();
                }
                if (suspended || queue.isEmpty() || active >= limits.maxActive()
                        || starts.size() >= limits.maxRequests()) {
                    return started;
                }
                task = queue.removeFirst();
                starts.addLast(now);
                active++;
            }
            started++;
            Task<?> running = task;
            try {
                runner.execute(() -> {
                    try {
                        running.run();
                    } finally {
                        finished();
                    }
                });
            } catch (RejectedExecutionException e) {
                finished();
                running.result().completeExceptionally(e);
            }
        }
    }

    private synchronized void finished() {
        active--;
    }

    /** Nothing new starts until {@link #resume()}; the queue is kept. */
    public synchronized void suspend() {
        suspended = true;
    }

    public synchronized void resume() {
        suspended = false;
    }

    public synchronized boolean suspended() {
        return suspended;
    }

    public synchronized int queued() {
        return queue.size();
    }

    public synchronized int active() {
        return active;
    }

    /** How long until the window lets another start (zero when it does now). */
    public synchronized Duration untilWindowOpens() {
        Instant now = clock.instant();
        if (starts.size() < limits.maxRequests()) {
            return Duration.ZERO;
        }
        Duration left = Duration.between(now, starts.peekFirst().plus(limits.window()));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Stops polling; queued tasks are cancelled, running ones finish. */
    @Override
    public void close() {
        ScheduledExecutorService stopping;
        synchronized (this) {
            stopping = poller;
            poller = null;
            queue.forEach(task -> task.result().cancel(false));
            queue.clear();
        }
        if (stopping != null) {
            stopping.shutdownNow();
        }
        if (ownRunner != null) {
            ownRunner.shutdown();
        }
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
