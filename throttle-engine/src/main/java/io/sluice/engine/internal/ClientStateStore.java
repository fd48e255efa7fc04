package io.sluice.engine.internal;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.policy.Policy;
import java.util.List;

/**
 * Where the per-client state of rules 3, 4 and 5 lives: hit stacks, crawler spacing and requests in
 * flight. The rules only talk to this interface, so a shared store (Redis, for cluster mode) can replace
 * the local one without touching them. Each operation is atomic for its client; times are passed in,
 * never read.
 *
 * <p>Requests in flight describe connections to this node and must never be forgotten while a request
 * runs, whatever the store does to bound its memory: an evicted client must not come back with a zero
 * count and be over-admitted (see {@link LocalClientStateStore}). A shared store keeps them on the node.
 */
public interface ClientStateStore {

    /**
     * Rule 4: pushes one hit at {@code nowMillis} and reports the stack against {@code limits}, with a
     * handle on the client ({@link HitStackState#client()}) for the operations below.
     */
    HitStackState pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits);

    /**
     * Rule 3: takes the crawler slot if this client was not served within {@code perCrawlerMillis} and
     * no crawler within {@code allCrawlersMillis}.
     *
     * @param client the handle {@link #pushHit} returned for this decision
     */
    CrawlerSlot reserveCrawlerSlot(ClientKey key, Object client, long nowMillis, long perCrawlerMillis,
                                   long allCrawlersMillis);

    /** Gives back a granted slot whose request was not served after all. */
    void releaseCrawlerSlot(CrawlerSlot slot);

    /**
     * Rule 5: takes one of the client's {@code max} in-flight slots.
     *
     * @param client the handle {@link #pushHit} returned for this decision
     * @return the token to give the slot back with, exactly once; null when {@code max} are in flight already
     */
    Object acquireInFlight(ClientKey key, Object client, int max);

    /** Gives back a slot {@link #acquireInFlight} took. */
    void releaseInFlight(Object token);

    /** Notes that a request of this client was refused or delayed (heatmap and status). */
    void recordLimited(ClientKey key, long nowMillis, boolean refused);

    /** The {@code limit} clients with the most hits in the last {@code windowSeconds}, busiest first. */
    List<ClientSample> busiest(int limit, long nowMillis, int windowSeconds);

    /** Clients held now. */
    long tracked();

    /** The most clients held. */
    long capacity();

    /** Clients evicted since start (capacity or idleness). */
    long evicted();
}
