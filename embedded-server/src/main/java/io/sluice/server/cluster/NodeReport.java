package io.sluice.server.cluster;

import java.time.Instant;

/**
 * What a node publishes about itself every heartbeat (the small part; the per-second counts go once a
 * second beside it).
 *
 * @param name          its {@code --node-name}
 * @param admin         its admin API's address, so a console can open it
 * @param state         {@code HEALTHY} or {@code DEGRADED}, as its own monitor says
 * @param inFlight      requests in flight on it
 * @param policyVersion the policy version it runs
 * @param startedAt     when it started
 */
public record NodeReport(String name, String admin, NodeState state, long inFlight, long policyVersion,
                         Instant startedAt) {
}
