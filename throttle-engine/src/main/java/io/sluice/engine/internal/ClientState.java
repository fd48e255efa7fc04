package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.store.ClientKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One tracked client: its key (the state is its own table key, see {@link ClientKey}), its hit stack
 * ({@link HitRing}: per-second hit counts, the heatmap row as well), refusals per second, and its requests in flight
 * (rule 5). The same state serves an address aggregate (all user agents of one address or /64).
 *
 * <p>Hit stack and refusals are guarded by the object's own monitor: one client's requests
 * rarely race, so the lock is nearly always uncontended.
 *
 * <p>Requests in flight are one atomic int, taken and given back by compare-and-set without the monitor.
 * Its sign bit means <em>detached</em>: the table evicted this client. A detached state refuses new slots
 * (the caller looks the client up again) while its running requests still give theirs back here; the store
 * keeps a detached state that still has requests in flight aside and puts it back in the table if the
 * client returns, so a running request is never forgotten (see {@link LocalClientStateStore}).
 *
 * <p>Memory. The hit ring is allocated when a client comes back in another second while earlier hits still count
 * (see {@link HitRing}); the refusal ring on the first refusal.
 */
final class ClientState extends HitRing implements AggregateLink<ClientState> {
    /** {@link #tryAcquire}: a slot was taken. */
    static final int ACQUIRED = 0;
    /** {@link #tryAcquire}: the client already has {@code max} in flight. */
    static final int FULL = 1;
    /** {@link #tryAcquire}: this state was evicted; look the client up again. */
    static final int DETACHED = 2;

    /** Hits of a new client reported to the eviction policy one by one (its frequency counters saturate at 15). */
    static final int YOUNG_HITS = 16;
    /**
     * After its young hits, a client's accesses are reported once per this many seconds: its idle time is then
     * known to within this, so the tables expire a client this much after the idle time, never before.
     */
    static final int REPORT_SECONDS = 4;

    private static final int DETACHED_BIT = Integer.MIN_VALUE;
    /** {@link #solePrefix}: this client is not known to be alone at its address. */
    private static final byte NOT_SOLE = -1;
    /** {@link #soleMember} of an aggregate that has seen two clients or more. */
    private static final ClientState SHARED = new ClientState();
    private static final VarHandle IN_FLIGHT;
    private static final VarHandle SOLE_SLOTS;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(ClientState.class, "inFlight", int.class);
            SOLE_SLOTS = MethodHandles.lookup().findVarHandle(ClientState.class, "soleSlots", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Requests in flight; {@link #DETACHED_BIT} once evicted. Only through {@link #IN_FLIGHT}. */
    @SuppressWarnings("unused")
    private volatile int inFlight;

    /** Refusals in each of the hit ring's seconds (its slots); null until the first. */
    private char[] refusals;
    private long lastSeenMillis;
    private long lastLimitedMillis = Long.MIN_VALUE;
    private RequestClass requestClass;
    private String crawlerName;
    private boolean allowListed;

    /**
     * What the eviction policy was last told (see {@link #reportAccess}). Read and written without a lock: a
     * race only tells the policy once more or once less, which changes nothing that matters.
     */
    private int reportedHits;
    private long reportedSecond = Long.MIN_VALUE;
    /** This client's address aggregate, as last found in the address store (a hint: see {@link AggregateLink}). */
    private ClientState aggregate;

    /**
     * Client role: the {@link ClientKey#prefixBits} of the address aggregate whose counts are known to be this
     * client's alone ({@link #NOT_SOLE} when none), so its requests answer for the aggregate from their own counts
     * without touching the aggregate's state. Set under the aggregate's monitor, cleared by the aggregate when a
     * second client joins it or the table evicts it (see {@link #pushAsAggregate}).
     */
    private volatile byte solePrefix = NOT_SOLE;
    /**
     * Client role: its requests holding its address's in-flight slot while it answered for its aggregate; the sign
     * bit ({@link #DETACHED_BIT}) once a second client folded them into the aggregate's own count
     * ({@link #foldedInto}), where each gives its slot back. The bit stays, none running or some: a request of this
     * client judged alone just before the fold takes its slot after it, and must find it detached and take the
     * aggregate's, or it would run uncounted by the address (a fold with nothing running left the count at 0, and
     * ConcurrencyHammerTest saw a fourth request of an address limited to three). Only through {@link #SOLE_SLOTS}.
     */
    @SuppressWarnings("unused")
    private volatile int soleSlots;
    /** Client role: the aggregate its sole slots were carried into (see {@link #soleSlots}). */
    private volatile ClientState foldedInto;
    /** Client role: the second {@link #aggregateReportDue} last reported its sole aggregate's access (see there). */
    private int aggregateReportedSecond = Integer.MIN_VALUE;
    /**
     * Aggregate role: the one client every hit of this aggregate came from, whose own counts are therefore the
     * aggregate's (this state's ring stays unused); {@link #SHARED} once a second client was seen, when the ring
     * holds the aggregate's counts; null before any. Guarded by this state's monitor (read without it only for the
     * heatmap).
     */
    private ClientState soleMember;
    /** What its requests cost the upstream over the last minute; null until one completed with a cost. */
    private volatile CostWindow costs;
    /**
     * The window of its network's costs, as last counted on (a hint, like {@link #aggregate}: NetworkCosts checks
     * that the table still holds it). Read and written without a lock: a race only costs a lookup.
     */
    private CostWindow networkCosts;

    ClientState(ClientKey key) {
        super(key);
    }

    /** A state with no address, for tests of the buckets alone. */
    ClientState() {
        this(new ClientKey(null, ""));
    }

    @Override
    public ClientState linkedAggregate() {
        return aggregate;
    }

    @Override
    public void linkAggregate(ClientState linked) {
        aggregate = linked;
    }

    /** Whether the table still holds this state (not evicted). */
    boolean isAttached() {
        return (int) IN_FLIGHT.getVolatile(this) >= 0;
    }

    // ---------------------------------------------------------------- the address aggregate's role

    /**
     * Aggregate role: counts the hit of {@code member}, already pushed on the member's own state, and reports the
     * aggregate's window. While {@code member} is the only client seen at this address (the usual case), the
     * aggregate's counts are the member's own: nothing is pushed here, and when {@code shortcut} (this state is in
     * the main table, whose eviction tells the member) the member answers for the aggregate by itself from then on,
     * without touching this state, a cache miss less per request. A second client folds the first one's counts
     * into this state, which counts for every client of the address from then on, the first one's requests in flight
     * included (they give their slots back here). One hit of the first client racing the fold may be counted twice.
     *
     * @return the aggregate's window; its handle for the in-flight slot is the sole member, or this state
     */
    synchronized HitStackState<ClientState> pushAsAggregate(ClientState member, boolean shortcut, long nowMillis,
                                                            RequestClass cls, String crawler, boolean allowed,
                                                            int windowSeconds, int maxHits, int weight) {
        if (soleMember == null) {
            soleMember = member;
        }
        if (soleMember == member) {
            if (shortcut && isAttached()) {
                member.solePrefix = prefixBits(); // under this monitor: a fold or an eviction cannot be missed
            }
            return member.window(nowMillis, windowSeconds, maxHits);
        }
        if (soleMember != SHARED) {
            foldIn(soleMember, nowMillis);
            soleMember = SHARED;
        }
        return push(nowMillis, cls, crawler, allowed, windowSeconds, maxHits, weight);
    }

    /**
     * Takes {@code first}'s counts as this aggregate's (they were all of it) and ends its answering for it: its hits,
     * and its requests in flight, which from now on give their slots back here.
     */
    private void foldIn(ClientState first, long nowMillis) {
        synchronized (first) {
            first.solePrefix = NOT_SOLE;
            copyHits(first);
        }
        CostWindow firstCosts = first.costs;
        if (firstCosts != null) {
            costWindow().addAll(firstCosts, nowMillis);
        }
        while (true) {
            int slots = (int) SOLE_SLOTS.getVolatile(first);
            if (slots < 0) {
                return; // folded into an earlier aggregate already: those still running drain there
            }
            first.foldedInto = this; // before the mark that sends their releases here
            addInFlight(slots); // before the first of them can give its slot back here
            if (SOLE_SLOTS.compareAndSet(first, slots, slots | DETACHED_BIT)) {
                return;
            }
            addInFlight(-slots); // one was taken or given back meanwhile: again
        }
    }

    private void addInFlight(int delta) {
        IN_FLIGHT.getAndAdd(this, delta); // the detached bit is the sign bit: counts below it are unaffected
    }

    /**
     * Client role, answering for its aggregate: takes one of the address's {@code max} slots on this client's own
     * count ({@link #ACQUIRED} or {@link #FULL}); {@link #DETACHED} when its slots were folded into the aggregate,
     * whose own slot must be taken instead.
     */
    int tryAcquireSoleSlot(int max) {
        return tryTake(SOLE_SLOTS, max);
    }

    /**
     * Client role: gives back an address slot taken by {@link #tryAcquireSoleSlot}. Returns null when it was this
     * client's own still, or the aggregate it was folded into, which the caller gives the slot back to.
     */
    ClientState releaseSoleSlot() {
        while (true) {
            int slots = (int) SOLE_SLOTS.getVolatile(this);
            if (slots >= 0) {
                if (SOLE_SLOTS.compareAndSet(this, slots, slots - 1)) {
                    return null;
                }
                continue;
            }
            ClientState aggregate = foldedInto;
            if (SOLE_SLOTS.compareAndSet(this, slots, slots - 1)) { // detached for good, even at none left
                return aggregate;
            }
        }
    }

    /** Aggregate role, once the table evicted it: its sole member must look the aggregate up again. */
    synchronized void revokeSoleMember() {
        if (soleMember != null && soleMember != SHARED) {
            soleMember.solePrefix = NOT_SOLE;
        }
    }

    /** Client role: whether this client answers for the aggregate {@code key} by itself (see above). */
    boolean answersFor(ClientKey key) {
        return solePrefix == key.prefixBits() && isIn(key);
    }

    /**
     * Client role, while it answers for its aggregate: whether to report the aggregate's access to the address
     * table now (once per {@link #REPORT_SECONDS}), so the aggregate keeps its place there as if it were pushed:
     * evicted, it would end the shortcut and be made again at the member's next request.
     */
    boolean aggregateReportDue(long nowMillis) {
        int second = (int) Math.floorDiv(nowMillis, 1000);
        int elapsed = second - aggregateReportedSecond;
        if (elapsed >= REPORT_SECONDS || elapsed < 0) {
            aggregateReportedSecond = second;
            return true;
        }
        return false;
    }

    /** The state whose counts are this key's: an aggregate's sole member, or this state. */
    ClientState counts() {
        ClientState sole = soleMember;
        return sole != null && sole != SHARED ? sole : this;
    }

    /**
     * This key's row for the heatmap. An aggregate its sole member answers for shows the member's hits and requests
     * in flight (they are the address's) with its own refusals, the ones made as an address (and the member's
     * costs, which are the address's too).
     */
    ClientSample sample(long nowMillis, int windowSeconds) {
        ClientSample own = sample(this, nowMillis, windowSeconds);
        ClientState counts = counts();
        if (counts == this) {
            return own;
        }
        ClientSample member = counts.sample(this, nowMillis, windowSeconds);
        return new ClientSample(this, member.requestClass(), member.crawlerName(), member.allowListed(),
                member.hitsInWindow(), member.hitsPerSecond(), own.refusedPerSecond(), member.lastSeenMillis(),
                own.lastLimitedMillis(), member.inFlight(), member.cost());
    }

    // ---------------------------------------------------------------- cost (telemetry)

    /** Counts what one of its requests cost the upstream. */
    void recordCost(long nowMillis, int weight, RequestCost cost) {
        costWindow().add(nowMillis, weight, cost);
    }

    CostWindow networkCosts() {
        return networkCosts;
    }

    void linkNetworkCosts(CostWindow network) {
        networkCosts = network;
    }

    private CostWindow costWindow() {
        CostWindow window = costs;
        if (window == null) {
            synchronized (this) {
                window = costs;
                if (window == null) {
                    window = new CostWindow();
                    costs = window;
                }
            }
        }
        return window;
    }

    /** The upstream's time its requests took over the last minute, in microseconds (0 when none was counted). */
    long upstreamMicros(long nowMillis) {
        CostWindow window = costs;
        return window == null ? 0 : window.sample(nowMillis).cost().upstreamMicros();
    }

    // ---------------------------------------------------------------- rule 5: requests in flight

    /** Takes a slot if fewer than {@code max} are in flight: {@link #ACQUIRED}, {@link #FULL} or {@link #DETACHED}. */
    int tryAcquire(int max) {
        return tryTake(IN_FLIGHT, max);
    }

    /** One more on the count {@code slots} if below {@code max} and not marked (its sign bit). */
    private int tryTake(VarHandle slots, int max) {
        while (true) {
            int now = (int) slots.getVolatile(this);
            if (now < 0) {
                return DETACHED;
            }
            if (now >= max) {
                return FULL;
            }
            if (slots.compareAndSet(this, now, now + 1)) {
                return ACQUIRED;
            }
        }
    }

    /** Gives a slot back; true when that left a detached state with nothing in flight. */
    boolean release() {
        return (int) IN_FLIGHT.getAndAdd(this, -1) - 1 == DETACHED_BIT;
    }

    /** Whether this state was evicted and has nothing in flight: nothing of it is left to count. */
    boolean isDetachedAndIdle() {
        return (int) IN_FLIGHT.getVolatile(this) == DETACHED_BIT;
    }

    /** Requests in flight now. */
    int inFlight() {
        return (int) IN_FLIGHT.getVolatile(this) & Integer.MAX_VALUE;
    }

    /** Marks the state evicted (new slots are refused from now on); returns the requests still in flight. */
    int detach() {
        while (true) {
            int now = (int) IN_FLIGHT.getVolatile(this);
            if (IN_FLIGHT.compareAndSet(this, now, now | DETACHED_BIT)) {
                return now & Integer.MAX_VALUE;
            }
        }
    }

    /**
     * Puts an evicted state back in service for its returning client: the requests still in flight stay
     * counted, everything else starts afresh, as for any client the table had forgotten.
     */
    synchronized void reattach() {
        clearHits();
        refusals = null;
        lastSeenMillis = 0;
        lastLimitedMillis = Long.MIN_VALUE;
        reportedHits = 0;
        reportedSecond = Long.MIN_VALUE;
        costs = null;
        while (true) {
            int now = (int) IN_FLIGHT.getVolatile(this);
            if (IN_FLIGHT.compareAndSet(this, now, now & Integer.MAX_VALUE)) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- eviction policy

    /**
     * Whether this request should be reported to the table's eviction policy: each of a client's first
     * {@link #YOUNG_HITS} requests (so a client seen a few times is told apart from a one-request newcomer
     * at once), then one request every {@link #REPORT_SECONDS} (enough for its frequency and recency, at a
     * fraction of the cost when a client sends many requests).
     */
    boolean reportAccess(long nowMillis) {
        long second = Math.floorDiv(nowMillis, 1000);
        if (reportedHits < YOUNG_HITS) {
            reportedHits++;
            reportedSecond = second;
            return true;
        }
        if (second - reportedSecond >= REPORT_SECONDS || second < reportedSecond) {
            reportedSecond = second;
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- rules 3 and 4, telemetry

    /** Pushes a hit of {@code weight} (0: the request costs nothing, it is only seen). */
    synchronized HitStackState<ClientState> push(long nowMillis, RequestClass cls, String crawler, boolean allowed,
                                                 int windowSeconds, int maxHits, int weight) {
        moveTo(secondOf(nowMillis));
        add(weight);
        lastSeenMillis = nowMillis;
        // References are stored only when they change: the state of a busy client lives in the old generation,
        // where each reference store costs a collector write barrier (G1 marks and queues the card)
        if (requestClass != cls) {
            requestClass = cls;
        }
        if (crawlerName != crawler) {
            crawlerName = crawler;
        }
        allowListed = allowed;
        return state(nowMillis, windowSeconds, maxHits);
    }

    /** The window ending now, no hit pushed (for an aggregate answered for by this client, whose hit is in). */
    synchronized HitStackState<ClientState> window(long nowMillis, int windowSeconds, int maxHits) {
        moveTo(secondOf(nowMillis));
        return state(nowMillis, windowSeconds, maxHits);
    }

    /** The window ending at the newest second, as rule 4 reads it. */
    private HitStackState<ClientState> state(long nowMillis, int windowSeconds, int maxHits) {
        return new HitStackState<>(windowHits(windowSeconds), millisUntilBelow(nowMillis, windowSeconds, maxHits),
                millisUntilReset(nowMillis, windowSeconds), this);
    }

    /** Moves the hit ring to {@code second}, and clears the refusals of the seconds that went by. */
    private void moveTo(long second) {
        int gone = advance(second);
        if (gone > 0 && refusals != null) {
            long newest = newestSecond();
            for (int i = 0; i < gone; i++) {
                refusals[slot(newest - i)] = 0;
            }
        }
    }

    /** The last refusal or delay, or {@code Long.MIN_VALUE}. */
    synchronized long lastLimitedMillis() {
        return lastLimitedMillis;
    }

    /**
     * A request refused before any rule counted it (the browser check asked it): seen, of its class, its refusal
     * counted, no hit on its stack.
     */
    synchronized void refusedUncounted(long nowMillis, RequestClass cls) {
        moveTo(secondOf(nowMillis));
        lastSeenMillis = nowMillis;
        if (requestClass != cls) {
            requestClass = cls;
        }
        limited(nowMillis, true);
    }

    synchronized void limited(long nowMillis, boolean refused) {
        moveTo(secondOf(nowMillis));
        lastLimitedMillis = nowMillis;
        if (refused) {
            if (refusals == null) {
                refusals = new char[SECONDS];
            }
            int slot = slot(newestSecond());
            if (refusals[slot] < Character.MAX_VALUE) {
                refusals[slot]++;
            }
        }
    }

    /**
     * Hits in the window ending at {@code nowMillis}'s second, for the snapshot. Like {@link #sample}, it counts by the
     * hits' own seconds, never past that one: a request decided after the snapshot read the clock may have moved this
     * state to a later second, and the window must not slide for one state of a snapshot and not for another.
     */
    synchronized int hitsInWindow(long nowMillis, int windowSeconds) {
        long end = secondOf(nowMillis);
        moveTo(end);
        return hitsInWindowEndingAt(end, windowSeconds);
    }

    /**
     * This state's row as of {@code nowMillis}'s second (see {@link #hitsInWindow}): every state of one snapshot is
     * read at the same second, so a hit pushed on a client and then on its address is in both rows or in neither
     * (the address is read first: see EngineTelemetry).
     */
    synchronized ClientSample sample(ClientKey key, long nowMillis, int windowSeconds) {
        long end = secondOf(nowMillis);
        moveTo(end);
        int[] hitRow = new int[SECONDS];
        int[] refusedRow = new int[SECONDS];
        for (int i = 0; i < SECONDS; i++) {
            long second = end - SECONDS + 1 + i;
            hitRow[i] = hitsAt(second);
            refusedRow[i] = refusals == null ? 0 : refusedAt(second);
        }
        int total = hitsInWindowEndingAt(end, windowSeconds);
        CostWindow window = costs;
        return new ClientSample(key, requestClass, crawlerName, allowListed, total, hitRow, refusedRow,
                lastSeenMillis, lastLimitedMillis, inFlight(),
                window == null ? CostWindow.CostSample.NONE : window.sample(nowMillis));
    }

    /**
     * Hands its hits and refusals in the window ending at {@code nowMillis}'s second (see {@link #hitsInWindow}) to
     * {@code tally}, outside its monitor; nothing for a state not judged yet.
     */
    void tally(long nowMillis, int windowSeconds, ClientStateStore.Tally tally) {
        int total = 0;
        int refused = 0;
        synchronized (this) {
            if (requestClass == null) {
                return;
            }
            long end = secondOf(nowMillis);
            moveTo(end);
            for (long s = end - windowSeconds + 1; s <= end; s++) {
                total += hitsAt(s);
                refused += refusals == null ? 0 : refusedAt(s);
            }
        }
        tally.count(this, total, refused);
    }

    private int refusedAt(long second) {
        return held(second) ? refusals[slot(second)] : 0;
    }
}
