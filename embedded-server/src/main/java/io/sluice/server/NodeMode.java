package io.sluice.server;

import io.sluice.server.admin.Route;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.state.StateDirectory;
import java.net.URI;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * What differs between a node on its own ({@link SingleNode}) and a node of a cluster ({@link ClusterMember}): where
 * the per-client rules are kept, where the policy's changes are recorded, the admin routes the mode adds, and what
 * it joins once the listeners are bound. {@link SluiceServer#start} asks the mode and never tests which one it is
 * (docs/architecture.md, "Composition").
 */
interface NodeMode extends AutoCloseable {

    /** The mode {@code config} asks for: a cluster node with {@code --redis}, else a node on its own. */
    static NodeMode of(ServerConfig config) {
        return config.cluster() == null ? new SingleNode()
                : new ClusterMember(config.cluster(), config.upstreamTimeout());
    }

    /** The store of the per-client rules, or null: the engine keeps them itself. */
    SharedClientStore<?> clientStore();

    /** Where the policy's one writer records its changes. */
    PolicyStore policyStore(StateDirectory state, NodeEngine node, InstantSource clock);

    /** Admin routes this mode adds to the API's own, served after authentication (mounted before {@link #join}). */
    List<Route> adminRoutes();

    /**
     * Called once the listeners are bound (a cluster node's default name and the address it advertises need their
     * ports): joins whatever the mode joins.
     */
    void join(Bound bound) throws Exception;

    /** This node's membership of its cluster, or null on its own (or before {@link #join}). */
    ClusterNode cluster();

    /** Leaves what {@link #join} joined; called after the policy's writer has stopped (it writes through it). */
    @Override
    void close();

    /**
     * A node whose listeners are bound.
     *
     * @param adminListening the admin listener's URI with the host it is bound to, {@code 0.0.0.0} or {@code [::]}
     *                       included (what to advertise is the mode's to decide)
     * @param adminThreads   the admin server's threads (where the workers' API answers complete)
     */
    record Bound(NodeEngine node, StateDirectory state, int frontPort, URI adminListening, Executor adminThreads,
                 InstantSource clock) {
    }
}
