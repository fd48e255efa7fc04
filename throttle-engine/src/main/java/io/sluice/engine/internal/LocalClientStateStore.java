package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import io.sluice.engine.ClientInfo;
import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
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
import java.util.function.ToLongBiFunction;

/**
 * The single-node {@link ClientStateStore}: one bounded Caffeine table of {@link ClientState}, each entry
 * its own key (one object per client).
 *
 * <p>Bounded by count ({@code maximumSize}): Caffeine's W-TinyLFU policy evicts the clients seen
 * least often and least recently first, and refuses to let a one-request newcomer push out a client
 * seen many times, so a spray of a million one-shot addresses churns among themselves while the
 * busy clients (whose hit stacks matter) stay. Idle clients are also dropped after
 * {@code idleSeconds}. Expiry runs on the engine's clock, and maintenance runs on the calling thread, so
 * nothing here starts a thread. The tables' {@link Ticker} is the time of the latest decision ({@link #tickMillis}),
 * not a clock read: Caffeine reads its ticker on every lookup, and a second clock read per decision costs about
 * 30 ns here, a sixth of a decision whose tables are in cache.
 *
 * <p>Cost. Telling the policy about an access is most of the price of a lookup in a large table: the
 * policy reorders its lists and counts in its frequency sketch, a few cache misses in a table of 100,000
 * clients. So a lookup is quiet ({@code getIfPresentQuietly}: one hash-table read) and the access is
 * reported only as {@link ClientState#reportAccess} says: every request of a client's first 16 (the
 * sketch's counters stop at 15, so a client seen a few times is told from a newcomer exactly as before),
 * then one request every 4 seconds ({@link ClientState#REPORT_SECONDS}). Frequency then means "requests,
 * then 4-second spans with requests", and recency and idle time are known to 4 seconds (the tables expire a
 * client that much after its idle time, never before); a busy client costs the policy once every 4 seconds,
 * not once a request (about 13% of a decision at 100,000 clients when it was once a second).
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
 * <p>Newcomers. A client's first request puts it in a small table of its own ({@link #newcomers}, 2% of the
 * capacity, at least 16); its second moves the same state to the main table. Under a spray of new addresses
 * (each seen once) the main table is left alone and each newcomer's state is dropped after a fraction of
 * a second, so it dies young: kept in one table of 100,000 it lived for seconds, long enough for every young
 * collection to copy it and then promote it, which made the collector's pauses the front end's p99 (see
 * docs/BENCHMARKS.md). A client that comes back after its newcomer state was dropped (a slow client in a
 * spray) is recognised by {@link RecentlySeen} and goes to the main table at once, so it is counted from
 * then on. Every structural change for one client (newcomer in, newcomer moved, main insert) runs under the
 * newcomers' lock for that client, so there is never more than one state per client. Where a client goes is
 * decided under the main table's lock as well, because a lookup does not see an expired state the table has not
 * removed yet: that state may still count a request running longer than the idle time, and must be orphaned and
 * taken back, not replaced by a fresh newcomer beside it (tested).
 *
 * <p>Forgetting a client is safe for rules 3 and 4 in the way that matters: it forgets hits, so an
 * evicted flooder starts again from an empty stack. That is the price of bounded memory and is
 * visible as the evicted count.
 */
public final class LocalClientStateStore implements ClientStateStore<ClientState, ClientState> {

    /** The most crawler identities whose last service is remembered. */
    static final int MAX_CRAWLERS = 10_000;

    private final Cache<ClientKey, ClientState> clients;
    private final ConcurrentMap<ClientKey, ClientState> table;
    private final com.github.benmanes.caffeine.cache.Policy<ClientKey, ClientState> policy;
    /** Clients seen once so far (see the class comment). */
    private final Cache<ClientKey, ClientState> newcomers;
    private final com.github.benmanes.caffeine.cache.Policy<ClientKey, ClientState> newcomerPolicy;
    private final RecentlySeen recentlySeen;
    /** Evicted clients with requests still in flight (each key maps to its own state). */
    private final ConcurrentHashMap<ClientKey, ClientState> orphans = new ConcurrentHashMap<>();
    private final long capacity;
    /** Whether this store holds address aggregates (see {@link #ofAggregates}). */
    private final boolean holdsAggregates;
    private final LongAdder evicted = new LongAdder();
    private final InstantSource clock;
    /**
     * Now for the tables' ticker: the latest time a decision (or a snapshot, which reads the clock) passed in. Only
     * raised, without a lock: two racing threads can leave it a millisecond behind, which idle expiry (a minute at
     * the least) cannot notice.
     */
    private volatile long tickMillis;
    /**
     * Rule 3, per crawler: when each crawler (its crawler-list entry) was last served. Crawler identities come
     * from the list (about 1,500), bounded all the same in case a classifier names more.
     */
    private final Cache<String, AtomicLong> crawlersServed = Caffeine.newBuilder()
            .maximumSize(MAX_CRAWLERS).executor(Runnable::run).build();

    /**
     * @param capacity the most clients in the main table; newcomers are held on top of it, 2% of it (at
     *                 least 16)
     */
    public LocalClientStateStore(long capacity, Duration idle, InstantSource clock) {
        this(capacity, idle, clock, false);
    }

    private LocalClientStateStore(long capacity, Duration idle, InstantSource clock, boolean holdsAggregates) {
        this.holdsAggregates = holdsAggregates;
        this.capacity = capacity;
        this.clock = clock;
        this.tickMillis = clock.millis();
        this.clients = table(capacity, idle);
        this.table = clients.asMap();
        this.policy = clients.policy();
        this.newcomers = table(Math.max(16, capacity / 50), idle);
        this.newcomerPolicy = newcomers.policy();
        this.recentlySeen = new RecentlySeen((int) Math.min(1 << 24, capacity));
    }

    /**
     * A store of address aggregates ({@link #pushAggregateHit}): an in-flight slot of an aggregate its sole member
     * answers for is counted on the member, so this store's leases may be members' states as well as its own.
     */
    public static LocalClientStateStore ofAggregates(long capacity, Duration idle, InstantSource clock) {
        return new LocalClientStateStore(capacity, idle, clock, true);
    }

    private Cache<ClientKey, ClientState> table(long size, Duration idle) {
        return Caffeine.newBuilder()
                .maximumSize(size)
                .expireAfterAccess(idle.plusSeconds(ClientState.REPORT_SECONDS))
                .ticker(() -> tickMillis * 1_000_000L)
                .executor(Runnable::run)
                .evictionListener((ClientKey k, ClientState v, RemovalCause c) -> onEvicted(v))
                .build();
    }

    private void tick(long nowMillis) {
        if (nowMillis > tickMillis) {
            tickMillis = nowMillis;
        }
    }

    /** Runs under the evicting table's lock for the key. */
    private void onEvicted(ClientState state) {
        evicted.increment();
        if (state == null) {
            return;
        }
        int inFlight = state.detach();
        state.revokeSoleMember();
        if (inFlight > 0) {
            orphans.put(state, state);
            forgetOrphan(state); // in case the last request completed meanwhile and found nothing to remove
        }
    }

    /**
     * Drops {@code state} from the orphans if it is still there and still has nothing in flight. The check and the
     * removal are one step under the orphan table's lock for the client: a request whose release left the state
     * idle may reach this call much later, after the client came back, took the state back and left it orphaned
     * again with new requests running (seen under load). Removing it then would forget those requests, and the
     * client's next request would be counted from zero beside them.
     */
    void forgetOrphan(ClientState state) {
        orphans.computeIfPresent(state, (key, orphan) -> orphan == state && state.isDetachedAndIdle() ? null : orphan);
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

    /** The client's live state in either table, or null. */
    private ClientState find(ClientKey key) {
        ClientState state = policy.getIfPresentQuietly(key);
        return state != null ? state : newcomerPolicy.getIfPresentQuietly(key);
    }

    /**
     * The state of a client the main table does not hold: a new one among the newcomers on its first request,
     * moved to the main table on its second; straight to the main table when it was seen before (its state
     * was dropped) or has an orphan. Runs under the newcomers' lock for {@code key}.
     */
    private ClientState insert(ClientKey key) {
        ClientState[] placed = new ClientState[1];
        newcomers.asMap().compute(key, (k, newcomer) -> {
            if (newcomer != null) {
                placed[0] = insertIntoMain(key, newcomer); // its second request: same state, main table
                return null; // an explicit removal, not an eviction: the state stays attached
            }
            ClientState resident = policy.getIfPresentQuietly(key);
            if (resident != null) {
                placed[0] = resident; // moved or inserted by a request of the same client just before
                return null;
            }
            ClientState fresh = new ClientState(key);
            boolean[] staysNewcomer = new boolean[1];
            // Decided under the main table's lock for the key: a lookup does not see an expired entry, but compute
            // evicts it first (orphaning it if requests of it are running, as a long download can be), so the
            // orphan check below cannot miss it and the client is never counted afresh beside its running requests.
            ClientState main = table.compute(fresh, (mainKey, live) -> {
                if (live != null || orphans.containsKey(key)) {
                    return live; // raced in; or an evicted state with requests running, adopted below
                }
                if (recentlySeen.markSeen(key)) {
                    return fresh; // seen before and its state was dropped
                }
                staysNewcomer[0] = true;
                return null;
            });
            if (staysNewcomer[0]) {
                placed[0] = fresh;
                return fresh;
            }
            placed[0] = main != null ? main : insertIntoMain(key, null);
            return null;
        });
        return placed[0];
    }

    /**
     * Puts {@code moving} (or, when null, a new state) in the main table, or takes the client's orphaned state
     * if it was evicted with requests in flight. Returns the state the main table holds for the client.
     */
    private ClientState insertIntoMain(ClientKey key, ClientState moving) {
        while (true) {
            ClientState orphan = orphans.get(key);
            ClientState candidate = orphan != null ? orphan : moving != null ? moving : new ClientState(key);
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
    public HitStackState<ClientState> pushHit(ClientKey key, ClientInfo info, long nowMillis, Policy.HitStack limits,
                                              int weight) {
        tick(nowMillis);
        return state(key, nowMillis).push(nowMillis, info.requestClass(), info.crawlerName(), info.allowListed(),
                limits.windowSeconds(), limits.maxHits(), weight);
    }

    /**
     * The aggregate's hit on behalf of {@code member}, the client of this decision. A member that is its address's
     * only client answers for the aggregate from its own counts, without a lookup or a second state (see
     * {@link ClientState#pushAsAggregate}). Otherwise follows the member's link when it still leads to the live
     * aggregate of {@code key} in the main table, and looks the key up when not, linking what the main table holds.
     * Only a main-table state is linked: a newcomer's state must be looked up on its second request, which moves it
     * to the main table (see the class comment). A linked state is told to the eviction policy like a looked-up
     * one, so it ages and is evicted as before; eviction detaches it, which breaks the link.
     */
    @Override
    public HitStackState<ClientState> pushAggregateHit(ClientKey key, AggregateLink<ClientState> member,
                                                       ClientInfo info, long nowMillis, Policy.HitStack limits,
                                                       int weight) {
        if (!holdsAggregates) {
            throw new IllegalStateException("not a store of address aggregates (see ofAggregates)");
        }
        tick(nowMillis);
        ClientState client = (ClientState) member; // the engine's client store is local too (ClientStores.local)
        if (client.answersFor(key)) {
            if (client.aggregateReportDue(nowMillis)) {
                clients.getIfPresent(key);
            }
            return client.window(nowMillis, limits.windowSeconds(), limits.maxHits());
        }
        ClientState linked = member.linkedAggregate();
        ClientState state;
        boolean inMainTable;
        if (linked != null && linked.isAttached() && linked.equals(key)) {
            state = linked;
            inMainTable = true;
            if (state.reportAccess(nowMillis)) {
                clients.getIfPresent(key);
            }
        } else {
            state = state(key, nowMillis);
            inMainTable = policy.getIfPresentQuietly(key) == state;
            if (state != linked && inMainTable) {
                member.linkAggregate(state);
            }
        }
        return state.pushAsAggregate(client, inMainTable, nowMillis, info.requestClass(), info.crawlerName(),
                info.allowListed(), limits.windowSeconds(), limits.maxHits(), weight);
    }

    @Override
    public CrawlerSlot reserveCrawler(String crawler, long nowMillis, long gapMillis) {
        AtomicLong lastServed = crawlersServed.get(crawler, name -> new AtomicLong(Long.MIN_VALUE));
        while (true) {
            long previous = lastServed.get();
            if (previous != Long.MIN_VALUE && nowMillis - previous < gapMillis) {
                return CrawlerSlot.refused(crawler, previous + gapMillis - nowMillis);
            }
            if (lastServed.compareAndSet(previous, nowMillis)) {
                return new CrawlerSlot(crawler, 0, nowMillis, previous);
            }
        }
    }

    @Override
    public void releaseCrawler(CrawlerSlot slot) {
        if (slot != null && slot.granted()) {
            AtomicLong lastServed = crawlersServed.getIfPresent(slot.crawler());
            if (lastServed != null) {
                lastServed.compareAndSet(slot.takenAt(), slot.previous());
            }
        }
    }

    @Override
    public ClientState acquireInFlight(ClientKey key, ClientState client, int max) {
        ClientState state = client;
        // an aggregate its sole member answers for: the address's slots are counted on the member
        boolean onMember = holdsAggregates && !client.isAggregate();
        while (true) {
            switch (onMember ? state.tryAcquireSoleSlot(max) : state.tryAcquire(max)) {
                case ClientState.ACQUIRED:
                    return state;
                case ClientState.FULL:
                    return null;
                default:
                    // evicted since the hit was pushed, or the member's slots folded into its aggregate since: the
                    // key's live state (maybe this one, taken back), and its own slot
                    onMember = false;
                    ClientState live = find(key);
                    state = live != null ? live : insert(key);
            }
        }
    }

    @Override
    public void releaseInFlight(ClientState lease) {
        // an address slot taken on its sole member is given back there, or where it was folded into
        ClientState state = lease.isAggregate() || !holdsAggregates ? lease : lease.releaseSoleSlot();
        if (state != null && state.release()) {
            forgetOrphan(state); // evicted, and this was its last request
        }
    }

    @Override
    public void recordLimited(ClientKey key, long nowMillis, boolean refused) {
        ClientState state = find(key);
        if (state != null) {
            state.limited(nowMillis, refused);
        }
    }

    @Override
    public void recordRefusedTracking(ClientKey key, RequestClass requestClass, long nowMillis) {
        state(key, nowMillis).refusedUncounted(nowMillis, requestClass);
    }

    @Override
    public List<ClientSample> busiest(int limit, long nowMillis, int windowSeconds) {
        return top(limit, nowMillis, windowSeconds, (state, now) -> state.counts().hitsInWindow(now, windowSeconds),
                Long.MIN_VALUE, Comparator.comparingInt(ClientSample::hitsInWindow));
    }

    @Override
    public List<ClientSample> costliest(int limit, long nowMillis, int windowSeconds) {
        return top(limit, nowMillis, windowSeconds, (state, now) -> state.counts().upstreamMicros(now), 1,
                Comparator.comparingLong(sample -> sample.cost().cost().upstreamMicros()));
    }

    @Override
    public List<ClientSample> mostInFlight(int limit, long nowMillis, long limitedSinceMillis) {
        // twice the requests in flight, plus one when limited lately: a key limited with nothing in flight scores 1
        return top(limit, nowMillis, HitRing.SECONDS, (state, now) -> state.inFlight() * 2L
                        + (state.lastLimitedMillis() >= limitedSinceMillis ? 1 : 0), 1,
                Comparator.comparingInt(ClientSample::inFlight));
    }

    /** The {@code limit} keys of the highest {@code score}, at least {@code least}, highest first. */
    private List<ClientSample> top(int limit, long nowMillis, int windowSeconds,
                                   ToLongBiFunction<ClientState, Long> score, long least,
                                   Comparator<ClientSample> by) {
        tick(nowMillis);
        if (limit <= 0) {
            return List.of();
        }
        Comparator<ClientSample> order = by.thenComparingLong(ClientSample::lastSeenMillis);
        PriorityQueue<Scored> top = new PriorityQueue<>(limit + 1, Comparator.comparingLong(Scored::score));
        for (ConcurrentMap<ClientKey, ClientState> each : List.of(table, newcomers.asMap())) {
            each.forEach((key, state) -> {
                long value = score.applyAsLong(state, nowMillis);
                if (value >= least && (top.size() < limit || value > top.peek().score())) {
                    top.add(new Scored(value, state));
                    if (top.size() > limit) {
                        top.poll();
                    }
                }
            });
        }
        List<ClientSample> result = new ArrayList<>(top.size());
        for (Scored each : top) {
            result.add(each.state().sample(nowMillis, windowSeconds));
        }
        result.sort(order.reversed());
        return result;
    }

    private record Scored(long score, ClientState state) {
    }

    @Override
    public CostWindow recordCost(ClientState lease, long nowMillis, int weight, RequestCost cost) {
        // an address slot taken on its sole member: the member's own cost is the address's (see ClientState)
        if (!holdsAggregates || lease.isAggregate()) {
            lease.recordCost(nowMillis, weight, cost);
        }
        return lease.networkCosts();
    }

    @Override
    public void linkNetworkCosts(ClientState lease, CostWindow network) {
        lease.linkNetworkCosts(network);
    }

    @Override
    public void tally(long nowMillis, int windowSeconds, Tally tally) {
        tick(nowMillis);
        for (ConcurrentMap<ClientKey, ClientState> each : List.of(table, newcomers.asMap())) {
            each.forEach((key, state) -> state.tally(nowMillis, windowSeconds, tally));
        }
    }

    @Override
    public long tracked() {
        tick(clock.millis());
        clients.cleanUp();
        newcomers.cleanUp();
        return clients.estimatedSize() + newcomers.estimatedSize();
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public long evicted() {
        return evicted.sum();
    }

    /** Whether the client is held among the newcomers (for tests). */
    boolean isNewcomer(ClientKey key) {
        return newcomerPolicy.getIfPresentQuietly(key) != null;
    }

    /** Evicted clients whose requests are still running (for tests). */
    int orphaned() {
        return orphans.size();
    }
}
