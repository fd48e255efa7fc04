package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The single-node {@link ClientStateStore}: one bounded Caffeine table of {@link ClientState}, each entry
 * its own key (one object per client).
 *
 * <p>Bounded by count ({@code maximumSize}): Caffeine's W-TinyLFU policy evicts the clients seen
 * least often and least recently first, and refuses to let a one-request newcomer push out a client
 * seen many times, so a spray of a million one-shot addresses churns among themselves while the
 * busy clients (whose hit stacks matter) stay. Idle clients are also dropped after
 * {@code idleSeconds}. Expiry runs on the engine's clock (a {@link Ticker} over the
 * {@link InstantSource}), and maintenance runs on the calling thread, so nothing here starts a thread.
 *
 * <p>Cost. Telling the policy about an access is most of the price of a lookup in a large table: the
 * policy reorders its lists and counts in its frequency sketch, a few cache misses in a table of 100,000
 * clients. So a lookup is quiet ({@code getIfPresentQuietly}: one hash-table read) and the access is
 * reported only as {@link ClientState#reportAccess} says: every request of a client's first 16 (the
 * sketch's counters stop at 15, so a client seen a few times is told from a newcomer exactly as before),
 * then the first request of each second. Frequency then means "requests, then seconds with requests", and
 * recency and idle time are known to the second; a busy client costs the policy once a second, not once
 * a request.
 *
 * <p>Requests in flight (rule 5) are counted in the client's state (no second table per request), and
 * eviction must not lose them. When the table evicts a client, its state is detached (it refuses new
 * slots; a request holding its state looks the client up again) and, if requests of it are still in
 * flight, kept in {@link #orphans} until they complete. A client that returns meanwhile gets that same
 * state back, with its in-flight count and otherwise empty, so there is only ever one count per client.
 * Eviction and re-insertion of one key are serialised by the table (the listener and the insert both run
 * under its lock for that key); the count itself is one compare-and-set word. The orphan table holds only
 * evicted clients with a request running, so its size is bounded by the requests in flight.
 *
 * <p>Forgetting a client is safe for rules 3 and 4 in the way that matters: it forgets hits, so an
 * evicted flooder starts again from an empty stack. That is the price of bounded memory and is
 * visible as the evicted count.
 */
public final class LocalClientStateStore implements ClientStateStore {

    private final Cache<ClientKey, ClientState> clients;
    private final ConcurrentMap<ClientKey, ClientState> table;
    private final com.github.benmanes.caffeine.cache.Policy<ClientKey, ClientState> policy;
    /** Evicted clients with requests still in flight (each key maps to its own state). */
    private final ConcurrentHashMap<ClientKey, ClientState> orphans = new ConcurrentHashMap<>();
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
                .evictionListener((ClientKey k, ClientState v, RemovalCause c) -> onEvicted(v))
                .build();
        this.table = clients.asMap();
        this.policy = clients.policy();
    }

    /** The engine's clock in milliseconds (all the precision idle expiry needs), without an Instant per read. */
    private static Ticker ticker(InstantSource clock) {
        return () -> clock.millis() * 1_000_000L;
    }

    /** Runs under the table's lock for the evicted key. */
    private void onEvicted(ClientState state) {
        evicted.increment();
        if (state != null && state.detach() > 0) {
            orphans.put(state, state);
            if (state.inFlight() == 0) {
                orphans.remove(state, state); // the last request completed meanwhile and found nothing to remove
            }
        }
    }

    /** The client's state, inserted if absent; the access reported to the eviction policy as described above. */
    private ClientState state(ClientKey key, long nowMillis) {
        ClientState state = policy.getIfPresentQuietly(key);
        if (state == null) {
            return insert(key);
        }
        if (state.reportAccess(nowMillis)) {
            clients.getIfPresent(key);
        }
        return state;
    }

    /** A new state for {@code key}, or its orphaned one if it was evicted with requests in flight. */
    private ClientState insert(ClientKey key) {
        while (true) {
            ClientState orphan = orphans.get(key);
            ClientState candidate = orphan != null ? orphan : new ClientState(key);
            // runs under the table's lock for this key, so no eviction of the key interleaves
            ClientState result = table.computeIfAbsent(candidate, k -> {
                ClientState nowOrphan = orphans.get(key);
                if (nowOrphan != null && nowOrphan != candidate) {
                    return null; // the client was evicted with requests in flight since we looked: take that state
                }
                if (orphan != null) {
                    orphans.remove(orphan, orphan);
                    orphan.reattach();
                }
                return candidate;
            });
            if (result != null) {
                return result;
            }
        }
    }

    @Override
    public HitStackState pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits) {
        return state(key, nowMillis).push(nowMillis, info.requestClass(), info.crawlerName(), info.allowListed(),
                limits.windowSeconds(), limits.maxHits());
    }

    @Override
    public CrawlerSlot reserveCrawlerSlot(ClientKey key, Object client, long nowMillis, long perCrawlerMillis,
                                          long allCrawlersMillis) {
        ClientState state = (ClientState) client;
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
    public Object acquireInFlight(ClientKey key, Object client, int max) {
        ClientState state = (ClientState) client;
        while (true) {
            switch (state.tryAcquire(max)) {
                case ClientState.ACQUIRED:
                    return state;
                case ClientState.FULL:
                    return null;
                default:
                    // evicted since the hit was pushed: the client's live state (maybe this one, taken back)
                    ClientState live = policy.getIfPresentQuietly(key);
                    state = live != null ? live : insert(key);
            }
        }
    }

    @Override
    public void releaseInFlight(Object token) {
        ClientState state = (ClientState) token;
        if (state.release()) {
            orphans.remove(state, state); // evicted, and this was its last request
        }
    }

    @Override
    public void recordLimited(ClientKey key, long nowMillis, boolean refused) {
        ClientState state = policy.getIfPresentQuietly(key);
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
        table.forEach((key, state) -> {
            int hits = state.hitsInWindow(nowMillis, windowSeconds);
            if (top.size() < limit || hits > top.peek().hitsInWindow()) {
                top.add(state.sample(state, nowMillis, windowSeconds));
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

    /** Evicted clients whose requests are still running (for tests). */
    int orphaned() {
        return orphans.size();
    }

    /** What a granted crawler slot changed, to undo it. */
    private record Taken(ClientState state, long at, long previousClient, long previousAll) {
    }
}
