package io.sluice.server.cluster;

/** How a node of the cluster looks from here. */
public enum NodeState {
    /** It reaches Redis within the deadline. */
    HEALTHY,
    /** It reaches Redis, but says it was slow or lost lately, and serves on local state meanwhile. */
    DEGRADED,
    /** Not heard from lately (stopped, partitioned from Redis, or gone): its load no longer counts. */
    UNREACHABLE
}
