package io.sluice.engine.telemetry;

/** How a node stands in its cluster. */
public enum ClusterState {
    /** Not in a cluster: started without {@code --redis}; every limit is this node's own. */
    STANDALONE,
    /** Redis answers within the deadline: the policy is the cluster's, the fleet is visible. */
    HEALTHY,
    /** Redis is slow or gone: the node serves on its local state and catches up when Redis is back. */
    DEGRADED
}
