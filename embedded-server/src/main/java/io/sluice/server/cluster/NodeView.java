package io.sluice.server.cluster;

import io.sluice.engine.telemetry.SecondCounts;
import java.time.Instant;
import java.util.List;

/**
 * One node in {@code GET /api/v1/cluster}.
 *
 * @param name          its name
 * @param admin         its admin API address
 * @param state         as it reported, or {@code UNREACHABLE} when not heard from lately
 * @param lastHeard     when its last report reached Redis (Redis's clock)
 * @param inFlight      requests in flight, as last reported
 * @param policyVersion the policy version it runs, as last reported
 * @param startedAt     when it started
 * @param seconds       per-second counts by class and outcome for the last minute, oldest first
 */
public record NodeView(String name, String admin, NodeState state, Instant lastHeard, long inFlight,
                       long policyVersion, Instant startedAt, List<SecondCounts> seconds) {
}
