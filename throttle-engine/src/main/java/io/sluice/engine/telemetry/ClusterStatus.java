package io.sluice.engine.telemetry;

/**
 * Which node answered and how it stands in its cluster, as part of a {@link Snapshot}.
 *
 * @param node     the node's name ({@code --node-name}), or null when standalone
 * @param state    its link to the cluster
 * @param nodes    the nodes it last saw reachable, itself included (1 when standalone)
 * @param inFlight requests in flight across those nodes, as last published (this node's own when standalone)
 */
public record ClusterStatus(String node, ClusterState state, int nodes, long inFlight) {

    /** A node on its own. */
    public static ClusterStatus standalone(long inFlight) {
        return new ClusterStatus(null, ClusterState.STANDALONE, 1, inFlight);
    }
}
