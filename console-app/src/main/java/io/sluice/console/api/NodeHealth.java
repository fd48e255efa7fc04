package io.sluice.console.api;

import io.sluice.engine.telemetry.ClusterState;
import java.time.Instant;

/**
 * {@code GET /api/v1/health}: how the answering node stands in its cluster.
 *
 * @param node           its name
 * @param state          {@code HEALTHY} or {@code DEGRADED}
 * @param reason         why it is in that state (the last change's cause)
 * @param since          when it entered that state
 * @param redis          the Redis it runs on
 * @param reachableNodes the nodes it last saw, itself included
 */
public record NodeHealth(String node, ClusterState state, String reason, Instant since, String redis,
                         int reachableNodes) {
}
