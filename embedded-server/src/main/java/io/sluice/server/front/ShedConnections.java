package io.sluice.server.front;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the public listener cut off to protect itself, counted since start: connections refused because their
 * address already held its share ({@link AddressConnectionLimit}), and connections closed because a request head
 * or body arrived too slowly ({@link RequestTimer}). Written as increments on the I/O threads, read by the
 * metrics.
 */
public final class ShedConnections {
    private final LongAdder overAddressCap = new LongAdder();
    private final LongAdder headTimeouts = new LongAdder();
    private final LongAdder slowBodies = new LongAdder();

    /**
     * The counts at one moment.
     *
     * @param overAddressCap connections closed on arrival: their address held its share of the listener
     * @param headTimeouts   connections closed because a request head was not complete within its deadline
     * @param slowBodies     connections closed because a request body arrived below the minimum rate
     */
    public record Counts(long overAddressCap, long headTimeouts, long slowBodies) {
    }

    void overAddressCap() {
        overAddressCap.increment();
    }

    void headTimedOut() {
        headTimeouts.increment();
    }

    void bodyTooSlow() {
        slowBodies.increment();
    }

    public Counts counts() {
        return new Counts(overAddressCap.sum(), headTimeouts.sum(), slowBodies.sum());
    }
}
