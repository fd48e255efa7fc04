package io.sluice.engine;

import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.CostWindow;
import io.sluice.engine.internal.CrawlerGate;
import io.sluice.engine.internal.CrawlerSlot;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.store.ClientKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a decision holds between its rules and its admission (the client's concurrency and crawler slots), and once
 * admitted, the admission itself: its slots are released exactly once, guarded by a compare-and-set on
 * {@link #completed}, so a duplicate {@code complete} is harmless.
 *
 * @param <L> the client store's lease type
 * @param <M> the address store's lease type
 */
class Pending<L, M> implements Decision.Admission {

    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(Pending.class, "completed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Outcomes outcomes;
    final ClientStateStore<?, L> store;
    final ClientStateStore<?, M> addressStore;
    final ClientKey addressKey;
    /** The address store's lease, or null when none was taken (allow-listed). */
    final M addressInFlight;
    final ClientInfo client;
    final ClientKey key;
    final IpAddress address;
    final CrawlerSlot crawlerSlot;
    final CrawlerGate.Turn crawlerTurn;
    /** The store's lease on the client's in-flight slot, or null when none was taken (allow-listed). */
    final L inFlight;
    final RateLimitStatus rate;
    /** The route the request matched (its weight and label, for its cost). */
    final RouteTable.Compiled route;
    /**
     * When it was admitted (the engine's clock, set by {@link Outcomes#admit} before the admission is handed out):
     * its completion's time is this plus its upstream time, so counting its cost reads no clock (a clock read costs
     * 20-40 ns, as much as a cost window's addition).
     */
    long admittedAtMillis;
    /**
     * The network's in-flight slot the browser check took for this request, or null: handed over by the check before
     * the decision leaves the engine ({@link #holdNetworkSlot}), given back with the request's other slots.
     */
    private volatile NetworkSlot<?> networkSlot;
    /** 1 once completed; only through {@link #COMPLETED}. */
    @SuppressWarnings("unused")
    private volatile int completed;

    Pending(Outcomes outcomes, ClientStateStore<?, L> store, ClientInfo client, ClientKey key, IpAddress address,
            CrawlerSlot crawlerSlot, CrawlerGate.Turn crawlerTurn, L inFlight, ClientStateStore<?, M> addressStore,
            ClientKey addressKey, M addressInFlight, RateLimitStatus rate, RouteTable.Compiled route) {
        this.outcomes = outcomes;
        this.route = route;
        this.store = store;
        this.addressStore = addressStore;
        this.addressKey = addressKey;
        this.addressInFlight = addressInFlight;
        this.crawlerTurn = crawlerTurn;
        this.client = client;
        this.key = key;
        this.address = address;
        this.crawlerSlot = crawlerSlot;
        this.inFlight = inFlight;
        this.rate = rate;
    }

    /** The request will not be served: give its slots back. Called at most once per pending. */
    void release() {
        releaseInFlight();
        outcomes.giveBackCrawler(store, crawlerSlot, crawlerTurn);
    }

    /**
     * From now on this request holds {@code slot} too, given back whichever way it ends (completed, its wait cancelled,
     * refused after its wait). Called by the browser check before the decision is handed out, so nothing can have
     * ended it yet.
     */
    void holdNetworkSlot(NetworkSlot<?> slot) {
        networkSlot = slot;
    }

    void releaseInFlight() {
        NetworkSlot<?> network = networkSlot;
        if (network != null) {
            network.release();
        }
        if (inFlight != null) {
            store.releaseInFlight(inFlight);
        }
        if (addressInFlight != null) {
            addressStore.releaseInFlight(addressInFlight);
        }
    }

    /** The admitted request finished: frees its load and concurrency slots, once. */
    @Override
    public void complete(int status, long upstreamLatencyNanos) {
        complete(status, upstreamLatencyNanos, null);
    }

    /** The same, and counts what it cost on its client, address, network, class and route (when given). */
    @Override
    public void complete(int status, long upstreamLatencyNanos, RequestCost cost) {
        if (!COMPLETED.compareAndSet(this, 0, 1)) {
            return;
        }
        if (cost != null) {
            long now = admittedAtMillis + Math.max(0, upstreamLatencyNanos) / 1_000_000;
            CostWindow linked = null;
            if (inFlight != null) {
                linked = store.recordCost(inFlight, now, route.weight(), cost);
            }
            if (addressInFlight != null) {
                addressStore.recordCost(addressInFlight, now, route.weight(), cost);
            }
            CostWindow network = outcomes.costed(client.requestClass(), address, linked, route, cost, now);
            if (inFlight != null && network != linked) {
                store.linkNetworkCosts(inFlight, network);
            }
        }
        outcomes.load().exit();
        releaseInFlight();
        outcomes.completed(upstreamLatencyNanos);
    }
}
