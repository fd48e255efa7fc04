package io.sluice.server;

import io.sluice.server.admin.Route;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.server.change.LocalPolicyStore;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.state.StateDirectory;
import java.time.InstantSource;
import java.util.List;

/** A node on its own: the engine keeps the per-client rules, the state directory's files record the policy. */
final class SingleNode implements NodeMode {

    @Override
    public SharedClientStore<?> clientStore() {
        return null;
    }

    @Override
    public PolicyStore policyStore(StateDirectory state, NodeEngine node, InstantSource clock) {
        return new LocalPolicyStore(state, node.history(), clock);
    }

    @Override
    public List<Route> adminRoutes() {
        return List.of();
    }

    @Override
    public void join(Bound bound) {
        // Nothing to join.
    }

    @Override
    public ClusterNode cluster() {
        return null;
    }

    @Override
    public void close() {
        // Nothing joined.
    }
}
