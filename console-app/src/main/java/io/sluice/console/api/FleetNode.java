package io.sluice.console.api;

import com.fasterxml.jackson.annotation.JsonEnumDefaultValue;
import io.sluice.engine.telemetry.SecondCounts;
import java.time.Instant;
import java.util.List;

/**
 * One node of {@code GET /api/v1/cluster}.
 *
 * @param name          its name
 * @param admin         its admin API address
 * @param state         as it last reported, or {@code UNREACHABLE} when not heard from lately
 * @param lastHeard     when its last report reached Redis (Redis's clock)
 * @param inFlight      requests in flight, as last reported
 * @param policyVersion the policy version it runs
 * @param startedAt     when it started
 * @param seconds       per-second counts by class and outcome for the last minute, oldest first
 */
public record FleetNode(String name, String admin, State state, Instant lastHeard, long inFlight,
                        long policyVersion, Instant startedAt, List<SecondCounts> seconds) {

    public FleetNode {
        state = state == null ? State.UNKNOWN : state;
        seconds = seconds == null ? List.of() : List.copyOf(seconds);
    }

    /** How a node stands, as the answering node sees it. */
    public enum State {
        /** It reaches Redis within the deadline. */
        HEALTHY,
        /** It reaches Redis but was slow or cut off lately, and serves on local state meanwhile. */
        DEGRADED,
        /** Not heard from lately (stopped, partitioned, gone): its load no longer counts. */
        UNREACHABLE,
        /** A state this console does not know (a newer server's). */
        @JsonEnumDefaultValue
        UNKNOWN
    }
}
