package io.sluice.engine;

import io.sluice.engine.internal.ClientStateStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One of a network's in-flight slots, taken by the browser check ({@link BrowserGate}) before the client rules judge
 * the request, and given back once: by the gate when the rules refuse it, else by the admission it travels with
 * ({@link Pending#holdNetworkSlot}) when that completes, or when its wait is cancelled or refused. A compare-and-set
 * on its own state makes a second release harmless, whichever path it comes from.
 *
 * @param <L> the network store's lease type
 */
final class NetworkSlot<L> {

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(NetworkSlot.class, "released", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ClientStateStore<?, L> store;
    private final L lease;
    /** 1 once given back; only through {@link #RELEASED}. */
    @SuppressWarnings("unused")
    private volatile int released;

    NetworkSlot(ClientStateStore<?, L> store, L lease) {
        this.store = store;
        this.lease = lease;
    }

    /** Gives the slot back to its network, once; later calls do nothing. */
    void release() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            store.releaseInFlight(lease);
        }
    }

    /** Whether the slot was given back (for tests). */
    boolean isReleased() {
        return released == 1;
    }
}
