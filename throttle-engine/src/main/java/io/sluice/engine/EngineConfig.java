package io.sluice.engine;

/**
 * Fixed sizing of one {@link ThrottleEngine}: how much it remembers, not how it throttles (that is the
 * {@link io.sluice.engine.policy.Policy}, which changes live). Immutable.
 *
 * @param maxTrackedClients the most clients whose hit stacks and crawler spacing are held; beyond it the
 *                          least valuable (idle, rarely seen) clients are evicted and counted
 * @param topClients        how many of the busiest clients the snapshot reports (heatmap rows)
 * @param idleSeconds       a client unseen for this long is dropped even when the table is not full
 *                          (at least the longest hit-stack window plus the crawler spacing that must be kept)
 */
public record EngineConfig(int maxTrackedClients, int topClients, int idleSeconds) {

    public EngineConfig {
        if (maxTrackedClients < 1) {
            throw new IllegalArgumentException("maxTrackedClients must be at least 1, was " + maxTrackedClients);
        }
        if (topClients < 0) {
            throw new IllegalArgumentException("topClients must not be negative, was " + topClients);
        }
        if (idleSeconds < 60) {
            throw new IllegalArgumentException("idleSeconds must be at least 60 (the heatmap), was " + idleSeconds);
        }
    }

    /** 100,000 clients, 50 heatmap rows, idle clients dropped after an hour. */
    public static EngineConfig defaults() {
        return new EngineConfig(100_000, 50, 3600);
    }

    public EngineConfig withMaxTrackedClients(int newMax) {
        return new EngineConfig(newMax, topClients, idleSeconds);
    }

    public EngineConfig withTopClients(int newTop) {
        return new EngineConfig(maxTrackedClients, newTop, idleSeconds);
    }
}
