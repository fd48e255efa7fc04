package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.sluice.engine.ClientInfo;
import io.sluice.engine.Reason;
import io.sluice.engine.policy.Policy;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The single-node {@link ClientStateStore}: one bounded Caffeine table of {@link ClientState}.
 *
 * <p>Bounded by count ({@code maximumSize}): Caffeine's W-TinyLFU policy evicts the clients seen
 * least often and least recently first, and refuses to let a one-request newcomer push out a client
 * seen many times, so a spray of a million one-shot addresses churns among themselves while the
 * busy clients (whose hit stacks matter) stay. Idle clients are also dropped after
 * {@code idleSeconds}. Expiry runs on the engine's clock (a {@link Ticker} over the
 * {@link InstantSource}), and maintenance runs on the calling thread, so nothing here starts a thread.
 *
 * <p>Forgetting a client is safe for rules 3 and 4 in the way that matters: it forgets hits, so an
 * evicted flooder starts again from an empty stack. That is the price of bounded memory and is
 * visible as the evicted count.
 */
public final class LocalClientStateStore implements ClientStateStore {

    private final Cache<ClientKey, ClientState> clients;
    private final long capacity;
    private final LongAdder evicted = new LongAdder();
    /** Rule 3, all crawlers: when a crawler was last served. */
    private final AtomicLong lastCrawlerServed = new AtomicLong(Long.MIN_VALUE);

    public LocalClientStateStore(long capacity, Duration idle, InstantSource clock) {
        this.capacity = capacity;
        this.clients = Caffeine.newBuilder()
                .maximumSize(capacity)
                .expireAfterAccess(idle)
                .ticker(ticker(clock))
                .executor(Runnable::run)
                .evictionListener((ClientKey k, ClientState v, com.github.benmanes.caffeine.cache.RemovalCause c) ->
                        evicted.increment())
                .build();
    }

    private static Ticker ticker(InstantSource clock) {
        return () -> {
            java.time.Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
    }

    private ClientState state(ClientKey key) {
        return clients.get(key, k -> new ClientState());
    }

    @Override
    public HitStackState pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits) {
        return state(key).push(nowMillis, info.requestClass(), info.crawlerName(), info.allowListed(),
                limits.windowSeconds(), limits.maxHits());
    }

    @Override
    public CrawlerSlot reserveCrawlerSlot(ClientKey key, long nowMillis, long perCrawlerMillis,
                                          long allCrawlersMillis) {
        ClientState state = state(key);
        // The client's monitor is held across both checks so two requests of one crawler cannot both pass.
        synchronized (state) {
            long clientWait = state.waitBeforeServe(nowMillis, perCrawlerMillis);
            if (clientWait > 0) {
                return new CrawlerSlot(Reason.CRAWLER_SPACING, clientWait, null);
            }
            while (true) {
                long previousAll = lastCrawlerServed.get();
                if (previousAll != Long.MIN_VALUE && nowMillis - previousAll < allCrawlersMillis) {
                    return new CrawlerSlot(Reason.CRAWLERS_BUSY, previousAll + allCrawlersMillis - nowMillis, null);
                }
                if (lastCrawlerServed.compareAndSet(previousAll, nowMillis)) {
                    long previousClient = state.markServed(nowMillis);
                    return new CrawlerSlot(null, 0, new Taken(state, nowMillis, previousClient, previousAll));
                }
            }
        }
    }

    @Override
    public void releaseCrawlerSlot(CrawlerSlot slot) {
        if (slot != null && slot.token() instanceof Taken taken) {
            taken.state.undoServe(taken.at, taken.previousClient);
            lastCrawlerServed.compareAndSet(taken.at, taken.previousAll);
        }
    }

    @Override
    public void recordLimited(ClientKey key, long nowMillis, boolean refused) {
        ClientState state = clients.getIfPresent(key);
        if (state != null) {
            state.limited(nowMillis, refused);
        }
    }

    @Override
    public List<ClientSample> busiest(int limit, long nowMillis, int windowSeconds) {
        if (limit <= 0) {
            return List.of();
        }
        Comparator<ClientSample> order = Comparator.comparingInt(ClientSample::hitsInWindow)
                .thenComparingLong(ClientSample::lastSeenMillis);
        PriorityQueue<ClientSample> top = new PriorityQueue<>(limit + 1, order);
        clients.asMap().forEach((key, state) -> {
            int hits = state.hitsInWindow(nowMillis, windowSeconds);
            if (top.size() < limit || hits > top.peek().hitsInWindow()) {
                top.add(state.sample(key, nowMillis, windowSeconds));
                if (top.size() > limit) {
                    top.poll();
                }
            }
        });
        List<ClientSample> result = new ArrayList<>(top);
        result.sort(order.reversed());
        return result;
    }

    @Override
    public long tracked() {
        clients.cleanUp();
        return clients.estimatedSize();
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public long evicted() {
        return evicted.sum();
    }

    /** What a granted crawler slot changed, to undo it. */
    private record Taken(ClientState state, long at, long previousClient, long previousAll) {
    }
}
