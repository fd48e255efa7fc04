package io.sluice.engine.telemetry;

/**
 * "What is costing us?": over the last minute, the upstream's time and who holds the largest share of it.
 *
 * @param upstreamMicros the upstream's time over the last minute, every request's, summed
 * @param byClass        the class with the largest share, or null when nothing cost anything
 * @param byNetwork      the network with the largest share, or null
 * @param byRoute        the route with the largest share, or null
 */
public record CostSummary(long upstreamMicros, CostShare byClass, CostShare byNetwork, CostShare byRoute) {

    public static final CostSummary NONE = new CostSummary(0, null, null, null);
}
