package io.sluice.engine.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Rule 5: requests in flight per client. Kept apart from the evictable client table on purpose: an
 * entry exists only while its client has a request in flight and is removed when the last one
 * completes, so its size is bounded by the requests in flight (never by the number of clients), and
 * eviction can never make the engine forget a running request and over-admit its client.
 */
public final class InFlightTable {

    private final ConcurrentHashMap<ClientKey, Counter> counts = new ConcurrentHashMap<>();

    /** Takes a slot if the client has fewer than {@code max} in flight. */
    public boolean tryAcquire(ClientKey key, int max) {
        Counter counter = counts.compute(key, (k, c) -> {
            Counter current = c == null ? new Counter() : c;
            if (current.value < max) {
                current.value++;
                current.granted = true;
            } else {
                current.granted = false;
            }
            return current.value == 0 ? null : current;
        });
        // compute runs under the bin lock, and granted is read by the same thread right after
        return counter != null && counter.granted;
    }

    /** Gives a slot back. */
    public void release(ClientKey key) {
        counts.computeIfPresent(key, (k, c) -> --c.value <= 0 ? null : c);
    }

    /** Requests of this client in flight now. */
    public int inFlight(ClientKey key) {
        Counter counter = counts.get(key);
        return counter == null ? 0 : counter.value;
    }

    /** Clients with at least one request in flight. */
    public int clients() {
        return counts.size();
    }

    /** Mutated only inside {@code compute} on its key. */
    private static final class Counter {
        int value;
        boolean granted;
    }
}
