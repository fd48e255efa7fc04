package io.sluice.server.cluster;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Duration;
import java.time.InstantSource;

/**
 * A node whose per-client rules are decided in the fixture's Redis (one server or a Redis Cluster), under the
 * default policy, on the real clock, once it is healthy.
 *
 * @param engine the node's engine
 * @param store  its shared client store (which counts the commands it sent)
 * @param node   its cluster membership (its state)
 */
record SharedStoreNode(ThrottleEngine engine, RedisClientStateStore store, ClusterNode node) {
    private static final Duration LEASE = Duration.ofSeconds(35);

    static SharedStoreNode start(ClusterFixture cluster, String name) {
        RedisClientStateStore store = new RedisClientStateStore(ClusterFixture.PATIENT, LEASE);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), Policy.defaults(),
                ClientStoreSpecification.CLASSIFIER, null, store);
        ClusterNode node = cluster.node(name, new EngineLoad(engine), ClusterFixture.PATIENT);
        node.shareClientState(store);
        ClusterFixture.awaitState(node, ClusterState.HEALTHY);
        return new SharedStoreNode(engine, store, node);
    }
}
