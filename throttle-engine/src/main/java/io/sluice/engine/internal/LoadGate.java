package io.sluice.engine.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rule 6: requests in flight to the upstream and requests parked by load deferral. Each limit is a
 * compare-and-set loop, so several threads can never take more than the limit between them.
 *
 * <p>In a cluster, {@code maxActive} is the cluster's: {@link #elsewhere} holds the other nodes' requests in flight
 * as last published (every heartbeat), and counts against the limit with this node's own. That part is a reading up
 * to a few hundred milliseconds old, so the cluster may exceed {@code maxActive} by what the other nodes admitted
 * within that time (docs/architecture-cluster.md, "Global load, and its error bound"); this node's own part stays
 * exact.
 */
public final class LoadGate {

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();
    /** Requests in flight on the other nodes of the cluster, as last read; 0 on a node of its own. */
    private volatile int elsewhere;

    /** Enters if fewer than {@code maxActive} are in flight (here and, in a cluster, on the other nodes). */
    public boolean tryEnter(int maxActive) {
        int limit = maxActive - elsewhere;
        while (true) {
            int now = inFlight.get();
            if (now >= limit) {
                return false;
            }
            if (inFlight.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** Enters whatever the load (browsers and allow-listed clients). */
    public void enter() {
        inFlight.incrementAndGet();
    }

    public void exit() {
        inFlight.decrementAndGet();
    }

    /** Takes a waiting place if fewer than {@code maxWaiting} are waiting. */
    public boolean tryWait(int maxWaiting) {
        while (true) {
            int now = waiting.get();
            if (now >= maxWaiting) {
                return false;
            }
            if (waiting.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    public void endWait() {
        waiting.decrementAndGet();
    }

    /** The other nodes' requests in flight, as last read (never negative; 0 for a single node). */
    public void elsewhere(long requests) {
        elsewhere = (int) Math.max(0, Math.min(Integer.MAX_VALUE / 2, requests));
    }

    public int elsewhere() {
        return elsewhere;
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int waiting() {
        return waiting.get();
    }
}
