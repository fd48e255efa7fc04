package io.sluice.benchmarks.cluster;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Requests asked of one node's engine directly, no HTTP: {@code inFlight} outstanding at a time, a new one asked as
 * soon as one is decided, from a thread of its own. An admitted request is completed at once, as the front end
 * completes it when its response ends, so its leases are given back as in production. In cluster mode the engine
 * answers {@link Decision.Pending} and the decision completes on the store's threads; this thread only waits for a
 * free slot.
 */
final class AdmissionLoad implements AutoCloseable {
    /** What a request ended with: the upstream's status and a millisecond's upstream latency, as a fast site. */
    private static final int STATUS = 200;
    private static final long UPSTREAM_NANOS = 1_000_000;
    private static final long DRAIN_SECONDS = 10;
    /**
     * How long the asking thread pauses after a decision made without asking Redis (a client refused until a known
     * time, or a node deciding alone while degraded): about a client's round trip. Without it such decisions come
     * back at once and the loop asks hundreds of thousands a second, which fills every address's hit stack, so
     * everything is refused from then on, and takes the CPU Redis and the nodes need (a 15 s run on a loaded machine
     * made 11 million refusals after a node went degraded).
     */
    private static final long UNASKED_PAUSE_NANOS = 1_000_000;

    private final ThrottleEngine engine;
    private final ClientCycle clients;
    private final int inFlight;
    private final Semaphore slots;
    private final Thread thread;
    private final LongAdder admitted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder other = new LongAdder();
    private final LongAdder unasked = new LongAdder();
    private final AtomicReference<String> lastRefusal = new AtomicReference<>();
    private volatile boolean running = true;

    /**
     * What the load has been answered so far.
     *
     * @param unasked decisions (among the others) the node made without asking Redis
     */
    record Counts(long admitted, long refused, long other, long unasked) {
        static final Counts NONE = new Counts(0, 0, 0, 0);

        Counts minus(Counts before) {
            return new Counts(admitted - before.admitted, refused - before.refused, other - before.other,
                    unasked - before.unasked);
        }

        Counts plus(Counts more) {
            return new Counts(admitted + more.admitted, refused + more.refused, other + more.other,
                    unasked + more.unasked);
        }
    }

    /** Starts asking. */
    AdmissionLoad(String name, ThrottleEngine engine, ClientCycle clients, int inFlight) {
        this.engine = engine;
        this.clients = clients;
        this.inFlight = inFlight;
        this.slots = new Semaphore(inFlight);
        this.thread = new Thread(this::ask, "admission-load-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    Counts counts() {
        return new Counts(admitted.sum(), refused.sum(), other.sum(), unasked.sum());
    }

    /** The last refusal's reason and words, or null if none was refused. */
    String lastRefusal() {
        return lastRefusal.get();
    }

    private void ask() {
        try {
            while (running) {
                if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue; // every slot is out: look at the flag again
                }
                Request request = clients.next();
                Decision decision;
                try {
                    decision = engine.decide(request);
                } catch (RuntimeException e) {
                    other.increment();
                    slots.release();
                    continue;
                }
                if (decision instanceof Decision.Pending pending) {
                    pending.decision().whenComplete((answer, failure) -> settle(answer));
                } else {
                    unasked.increment();
                    settle(decision);
                    LockSupport.parkNanos(UNASKED_PAUSE_NANOS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts the final decision, completes an admission, and frees the slot. */
    private void settle(Decision decision) {
        try {
            if (decision instanceof Decision.Admit admit) {
                admitted.increment();
                admit.admission().complete(STATUS, UPSTREAM_NANOS);
            } else if (decision instanceof Decision.Refuse refuse) {
                refused.increment();
                lastRefusal.set(refuse.reason() + ": " + refuse.detail());
            } else {
                other.increment(); // a wait the admit-all policy should never give, or a failure
                if (decision instanceof Decision.Wait wait) {
                    wait.deferral().cancel();
                }
            }
        } finally {
            slots.release();
        }
    }

    /** Stops asking and waits (at most 10 s) for the requests still out to be decided and completed. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(DRAIN_SECONDS));
            if (!slots.tryAcquire(inFlight, DRAIN_SECONDS, TimeUnit.SECONDS)) {
                System.err.printf("%s: %d requests still undecided after %d s%n", thread.getName(),
                        inFlight - slots.availablePermits(), DRAIN_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
