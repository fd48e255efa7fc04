package io.sluice.console.api;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.time.Instant;
import java.util.List;

/**
 * The fleet as {@code GET /api/v1/cluster} shows it (the console's own copy of the wire format: it never
 * uses the server's classes). Read leniently: fields a newer server adds are ignored, and a missing list
 * reads as empty.
 *
 * @param answeredBy the node that answered
 * @param state      that node's link to Redis ({@code HEALTHY} or {@code DEGRADED})
 * @param at         when the view was read (Redis's clock)
 * @param stale      true when Redis did not answer and this is the last view the node read
 * @param redis      the Redis the cluster runs on
 * @param nodes      every node heard from lately
 * @param totals     the cluster's totals over its reachable nodes
 */
public record Fleet(String answeredBy, ClusterState state, Instant at, boolean stale, String redis,
                    List<FleetNode> nodes, Totals totals) {

    public Fleet {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        totals = totals == null ? new Totals(nodes.size(), 0, 0, List.of()) : totals;
    }

    /**
     * @param nodes     nodes listed
     * @param reachable nodes heard from lately
     * @param inFlight  requests in flight on the reachable nodes
     * @param seconds   their per-second counts added up, oldest first
     */
    public record Totals(int nodes, int reachable, long inFlight, List<SecondCounts> seconds) {
        public Totals {
            seconds = seconds == null ? List.of() : List.copyOf(seconds);
        }
    }
}
