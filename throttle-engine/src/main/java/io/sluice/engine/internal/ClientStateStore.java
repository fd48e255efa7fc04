package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;
import io.sluice.engine.ClientInfo;
import io.sluice.engine.RequestCost;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import java.util.List;

/**
 * Where the per-key state of rules 3, 4 and 5 lives: hit stacks, requests in flight, and when each crawler
 * (its crawler-list entry) was last served, on this node: synchronous and in memory. (Cluster mode asks a
 * {@link SharedClientStore} instead, asynchronously, and keeps these local stores for the node's own view and for
 * deciding alone when the shared one cannot answer.) The engine holds one store for clients
 * (address and user agent) and one for address aggregates (an IPv4 address, an IPv6 /64), each keyed by a
 * {@link ClientKey}; both run the same operations. Each operation is atomic for its key; times are passed in,
 * never read.
 *
 * <p>Typed handles. {@link #pushHit} returns the store's own handle on the key ({@code C}), which the engine
 * hands back to {@link #acquireInFlight} on the same decision so the store needs no second lookup; an in-flight
 * slot is the store's lease ({@code L}), given back once with {@link #releaseInFlight}. The engine never looks
 * inside either, and an implementation gets its own types back, checked by the compiler.
 *
 * <p>Requests in flight describe connections to this node and must never be forgotten while a request
 * runs, whatever the store does to bound its memory: an evicted key must not come back with a zero
 * count and be over-admitted (see {@link LocalClientStateStore}). The shared store holds them as leases that
 * expire, so a node that dies cannot hold a client's slots for ever.
 *
 * @param <C> the store's handle on one key, valid for the decision that obtained it
 * @param <L> the store's record of one in-flight slot
 */
public interface ClientStateStore<C, L> {

    /**
     * Rule 4: pushes a hit of {@code weight} (0 for a request that costs nothing, such as a static asset) at
     * {@code nowMillis} and reports the stack against {@code limits}, with a handle on the key
     * ({@link HitStackState#client()}) for {@link #acquireInFlight}.
     */
    HitStackState<C> pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits, int weight);

    /**
     * Rule 4 for an aggregate key (a client's network address), pushed on behalf of the client whose handle on this
     * decision is {@code member}: the same as {@link #pushHit}, but the store may keep its handle on the member so
     * that the client's next requests reach the aggregate without a lookup (see {@link AggregateLink}).
     */
    default HitStackState<C> pushAggregateHit(ClientKey key, AggregateLink<C> member, ClientInfo info, long nowMillis,
                                              Policy.HitStack limits, int weight) {
        return pushHit(key, info, nowMillis, limits, weight);
    }

    /**
     * Rule 5: takes one of the key's {@code max} in-flight slots.
     *
     * @param client the handle {@link #pushHit} returned for this decision
     * @return the lease to give the slot back with, exactly once; null when {@code max} are in flight already
     */
    L acquireInFlight(ClientKey key, C client, int max);

    /** Gives back a slot {@link #acquireInFlight} took. */
    void releaseInFlight(L lease);

    /**
     * Rule 3, per crawler: takes the crawler's slot if the crawler (its crawler-list entry, whatever address or
     * user agent it came with) was not served within {@code gapMillis}; the slot records what to undo.
     */
    CrawlerSlot reserveCrawler(String crawler, long nowMillis, long gapMillis);

    /** Gives back a granted slot whose request was not served after all (a later rule refused it). */
    void releaseCrawler(CrawlerSlot slot);

    /** Notes that a request of this key was refused or delayed (heatmap and status). */
    void recordLimited(ClientKey key, long nowMillis, boolean refused);

    /**
     * Notes a refusal of a key that no rule may have counted yet (the browser check asks before the client's rules
     * run), tracking the key if it is not tracked: a fleet the check stops at its first page still shows, address by
     * address, on its network's row. A newcomer, as any key on its first request.
     */
    default void recordRefusedTracking(ClientKey key, RequestClass requestClass, long nowMillis) {
        recordLimited(key, nowMillis, true);
    }

    /** The {@code limit} keys with the most hits in the last {@code windowSeconds}, busiest first. */
    List<ClientSample> busiest(int limit, long nowMillis, int windowSeconds);

    /**
     * Counts what a request whose slot is {@code lease} cost the upstream, on the key the lease is of (telemetry).
     * A store of address aggregates counts an aggregate's cost on its sole member, whose own count it is already.
     *
     * @return the window of the key's network's costs it was linked to ({@link #linkNetworkCosts}), or null
     */
    default CostWindow recordCost(L lease, long nowMillis, int weight, RequestCost cost) {
        return null;
    }

    /**
     * Remembers on the key of {@code lease} the window of its network's costs, so that its next request's cost
     * reaches it without a lookup ({@link #recordCost} returns it); a store that keeps no link ignores it.
     */
    default void linkNetworkCosts(L lease, CostWindow network) {
    }

    /** The {@code limit} keys whose requests took the most upstream time in the last minute, costliest first. */
    default List<ClientSample> costliest(int limit, long nowMillis, int windowSeconds) {
        return List.of();
    }

    /**
     * The {@code limit} keys with the most requests in flight now, or limited ({@link #recordLimited}) since
     * {@code limitedSinceMillis} with none in flight, the most in flight first: a snapshot's view of the keys at their
     * concurrency limits (the browser check's networks).
     */
    default List<ClientSample> mostInFlight(int limit, long nowMillis, long limitedSinceMillis) {
        return List.of();
    }

    /** Hands every key judged once at least to {@code tally}, with its hits and refusals in the window. */
    default void tally(long nowMillis, int windowSeconds, Tally tally) {
    }

    /** One key's counts for {@link #tally}. */
    interface Tally {
        void count(ClientKey key, int hits, int refused);
    }

    /** Keys held now. */
    long tracked();

    /** The most keys held. */
    long capacity();

    /** Keys evicted since start (capacity or idleness). */
    long evicted();
}
