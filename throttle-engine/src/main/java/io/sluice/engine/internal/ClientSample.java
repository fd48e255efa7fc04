package io.sluice.engine.internal;

import io.sluice.engine.RequestClass;
import io.sluice.engine.store.ClientKey;

/**
 * A copy of one tracked client's state for the snapshot (never shared with the decision path).
 *
 * @param hitsPerSecond     hits in each of the last 60 seconds, oldest first
 * @param refusedPerSecond  refusals in each of the last 60 seconds, oldest first
 * @param lastLimitedMillis the last refusal or delay, or {@code Long.MIN_VALUE}
 * @param inFlight          requests of the client in flight
 * @param cost              what its requests cost the upstream over the last minute
 */
public record ClientSample(
        ClientKey key,
        RequestClass requestClass,
        String crawlerName,
        boolean allowListed,
        int hitsInWindow,
        int[] hitsPerSecond,
        int[] refusedPerSecond,
        long lastSeenMillis,
        long lastLimitedMillis,
        int inFlight,
        CostWindow.CostSample cost) {
}
