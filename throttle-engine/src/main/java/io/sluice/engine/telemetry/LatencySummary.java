package io.sluice.engine.telemetry;

/**
 * Upstream latency percentiles over a recent interval, in microseconds.
 *
 * @param count the number of completed upstream requests measured
 */
public record LatencySummary(long count, long p50Micros, long p90Micros, long p99Micros, long maxMicros) {
}
