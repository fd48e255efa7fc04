package io.sluice.benchmarks.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The person at work: a new page every {@code everyMillis} (from one load's start to the next; a load that takes
 * longer is followed at once), on its own thread, each load kept with when it started.
 */
final class PersonLoop implements AutoCloseable {
    private final Person person;
    private final long everyNanos;
    private final long timeoutMillis;
    private final Thread thread;
    // Guarded by this.
    private final List<Person.Load> loads = new ArrayList<>();
    private volatile long nextStart;
    private volatile boolean running = true;

    PersonLoop(Person person, long everyMillis, long timeoutMillis) {
        this.person = person;
        this.everyNanos = TimeUnit.MILLISECONDS.toNanos(everyMillis);
        this.timeoutMillis = timeoutMillis;
        this.nextStart = System.nanoTime();
        this.thread = new Thread(this::run, "person");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int page = 0;
        try {
            while (running) {
                long wait = nextStart - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                long started = System.nanoTime();
                nextStart = started + everyNanos;
                Person.Load load = person.load("/articles/person-" + page++, timeoutMillis);
                synchronized (this) {
                    loads.add(load);
                }
                if (System.nanoTime() > nextStart) {
                    nextStart = System.nanoTime();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** When the next load starts ({@link System#nanoTime}), or started if one is under way. */
    long nextStart() {
        return nextStart;
    }

    long everyNanos() {
        return everyNanos;
    }

    /** The loads that started in {@code [from, to)} and have ended. */
    synchronized List<Person.Load> startedBetween(long from, long to) {
        List<Person.Load> between = new ArrayList<>();
        for (Person.Load load : loads) {
            if (load.startNanos() - from >= 0 && load.startNanos() - to < 0) {
                between.add(load);
            }
        }
        return between;
    }

    /** Waits for the load under way to end, then stops. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(timeoutMillis + TimeUnit.NANOSECONDS.toMillis(everyNanos) + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.interrupt();
    }
}
