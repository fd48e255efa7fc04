package io.sluice.engine;

import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;

/** A request admitted by the shared store (cluster mode): its lease there, besides this node's own slots. */
final class SharedPending<L, M, S> extends Pending<L, M> {
    private final SharedClientStore<S> shared;
    private final S lease;

    SharedPending(Outcomes outcomes, ClientStateStore<?, L> store, ClientInfo client, ClientKey key,
                  IpAddress address, L inFlight, ClientStateStore<?, M> addressStore, ClientKey addressKey,
                  M addressInFlight, RateLimitStatus rate, SharedClientStore<S> shared, S lease,
                  RouteTable.Compiled route) {
        super(outcomes, store, client, key, address, null, null, inFlight, addressStore, addressKey, addressInFlight,
                rate, route);
        this.shared = shared;
        this.lease = lease;
    }

    /** Served: the slots go back. */
    @Override
    void releaseInFlight() {
        super.releaseInFlight();
        shared.release(lease, true);
    }

    /** Not served after all: the slots and the crawler's turn go back. */
    @Override
    void release() {
        super.releaseInFlight();
        outcomes.giveBackCrawler(store, crawlerSlot, crawlerTurn);
        shared.release(lease, false);
    }
}
