package io.sluice.engine.internal;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.policy.Policy;
import java.util.List;

/**
 * Where the per-client state of rules 3 and 4 lives: hit stacks and crawler spacing. The rules only
 * talk to this interface, so a shared store (Redis, for cluster mode) can replace the local one
 * without touching them. Each operation is atomic for its client; times are passed in, never read.
 *
 * <p>In-flight counts (rule 5) are not here on purpose: they describe connections to this node and
 * must never be forgotten while a request runs (see {@link InFlightTable}).
 */
public interface ClientStateStore {

    /** Rule 4: pushes one hit at {@code nowMillis} and reports the stack against {@code limits}. */
    HitStackState pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits);

    /**
     * Rule 3: takes the crawler slot if this client was not served within {@code perCrawlerMillis} and
     * no crawler within {@code allCrawlersMillis}.
     */
    CrawlerSlot reserveCrawlerSlot(ClientKey key, long nowMillis, long perCrawlerMillis, long allCrawlersMillis);

    /** Gives back a granted slot whose request was not served after all. */
    void releaseCrawlerSlot(CrawlerSlot slot);

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
