package io.sluice.server.cluster;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.time.Instant;
import java.util.List;

/**
 * The fleet, as {@code GET /api/v1/cluster} shows it.
 *
 * @param answeredBy the node that answered
 * @param state      that node's link to the cluster
 * @param at         when the view was read (Redis's clock), or when it was last read if Redis is unavailable
 * @param stale      true when Redis could not be read now and this is the view last read
 * @param redis      the Redis the cluster runs on (no password)
 * @param nodes      every node heard from in the last {@code nodeTtl}, by name
 * @param totals     the cluster's totals over its reachable nodes
 */
public record ClusterView(String answeredBy, ClusterState state, Instant at, boolean stale, String redis,
                          List<NodeView> nodes, Totals totals) {

    /**
     * @param nodes     nodes listed
     * @param reachable nodes heard from lately
     * @param inFlight  requests in flight on the reachable nodes
     * @param seconds   their per-second counts added up, second by second, oldest first
     */
    public record Totals(int nodes, int reachable, long inFlight, List<SecondCounts> seconds) {
    }
}
