package io.sluice.engine.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rule 6: requests in flight to the upstream and requests parked by load deferral. Each limit is a
 * compare-and-set loop, so several threads can never take more than the limit between them.
 */
public final class LoadGate {

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();

    /** Enters if fewer than {@code maxActive} are in flight. */
    public boolean tryEnter(int maxActive) {
        while (true) {
            int now = inFlight.get();
            if (now >= maxActive) {
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

    public int inFlight() {
        return inFlight.get();
    }

    public int waiting() {
        return waiting.get();
    }
}
