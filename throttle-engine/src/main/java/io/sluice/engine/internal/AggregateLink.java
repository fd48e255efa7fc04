package io.sluice.engine.internal;

/**
 * A client's handle that can carry the handle of its address aggregate, so that the client's next request
 * reaches the aggregate without looking it up. A lookup in a table of 100,000 keys is a handful of cache misses
 * (the table's slot, its node, the key, the state); following a reference the client's state already holds is
 * one. With the per-address aggregate on every request, the second lookup was as costly as the first (see
 * docs/architecture.md, "Client state").
 *
 * <p>The link is a hint, never the truth: the aggregate's store checks that the linked handle is still live
 * and still the aggregate of the key asked for before using it, and looks the key up otherwise. Written without
 * a lock: two requests of one client racing can only both link a live handle.
 *
 * @param <A> the aggregate store's handle
 */
public interface AggregateLink<A> {

    /** The aggregate's handle last linked, or null. */
    A linkedAggregate();

    /** Links {@code aggregate} to this client. */
    void linkAggregate(A aggregate);
}
