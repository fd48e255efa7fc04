package io.sluice.server;

import io.sluice.server.admin.Route;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.cluster.ClusterHandler;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.cluster.ClusterOptions;
import io.sluice.server.cluster.ClusterPassKeys;
import io.sluice.server.cluster.ClusterPolicyStore;
import io.sluice.server.cluster.AdvertisedAddress;
import io.sluice.server.cluster.EngineLoad;
import io.sluice.server.cluster.LocalPolicyMirror;
import io.sluice.server.cluster.RedisClientStateStore;
import io.sluice.server.cluster.RedisDomainLedger;
import io.sluice.server.state.StateDirectory;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

/**
 * A node of a cluster joined through Redis (docs/manual/cluster.md): the per-client rules, the policy and the
 * governor's per-domain state are the cluster's, in Redis. Until the node has joined, and whenever Redis is slow or
 * gone, the engine decides alone; a change to the policy is refused until then (nothing to record it in).
 */
final class ClusterMember implements NodeMode {
    private final ClusterOptions options;
    private final RedisClientStateStore clientStore;
    private volatile ClusterNode node;
    private volatile ClusterPassKeys passKeys;

    /** @param upstreamTimeout a lease outlives a dead node's requests by this and a margin */
    ClusterMember(ClusterOptions options, Duration upstreamTimeout) {
        this.options = options;
        this.clientStore = new RedisClientStateStore(options.settings(), upstreamTimeout.plusSeconds(5));
    }

    @Override
    public SharedClientStore<?> clientStore() {
        return clientStore;
    }

    /**
     * A change is a compare-and-set in Redis, taken by every node (this one too) from the log; the versions this node
     * ran are remembered for merging edits made from them.
     */
    @Override
    public PolicyStore policyStore(StateDirectory state, NodeEngine engine, InstantSource clock) {
        return new ClusterPolicyStore(() -> {
            ClusterNode joined = node;
            return joined == null ? null : joined.policy();
        }, () -> engine.engine().policy().version(), engine.history());
    }

    /** {@code /cluster}: answers 503 until the node has joined. */
    @Override
    public List<Route> adminRoutes() {
        return ClusterHandler.routes(() -> node);
    }

    @Override
    public void join(Bound bound) {
        ClusterNode joined = ClusterNode.start(options.nodeNameOr(bound.frontPort()), options.redis(),
                AdvertisedAddress.of(bound.adminListening(), options.redis()).toString(),
                new EngineLoad(bound.node().engine()), options.settings(),
                bound.clock());
        try {
            joined.policy().follow(new LocalPolicyMirror(bound.node().policyWriter(), bound.state(), bound.clock(),
                    bound.node().history()));
            joined.shareClientState(clientStore);
            // Permits and feedback go to the cluster's per-domain state in Redis; answers complete on the admin
            // server's threads (the workers' API), never on Redis's event loop.
            bound.node().governor().shareWith(RedisDomainLedger.of(joined, options.settings(),
                    bound.adminThreads()));
            bound.node().engine().reportClusterStatus(joined::status);
            // one browser pass key ring for the cluster: a pass made through this node is good on every node
            passKeys = ClusterPassKeys.start(joined, options.settings(), bound.state().path(),
                    bound.node().engine().browserPasses(), bound.state().audit(), bound.node().passKeyFollower(),
                    bound.clock());
        } catch (RuntimeException | Error e) {
            joined.close();
            throw e;
        }
        node = joined;
    }

    @Override
    public ClusterNode cluster() {
        return node;
    }

    @Override
    public void close() {
        ClusterPassKeys keys = passKeys;
        if (keys != null) {
            keys.close();
        }
        ClusterNode joined = node;
        if (joined != null) {
            joined.close();
        }
    }
}
