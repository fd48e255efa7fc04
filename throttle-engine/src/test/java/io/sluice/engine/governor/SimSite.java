package io.sluice.engine.governor;

/** A simulated web site: what it answers to a request at a given time. */
interface SimSite {

    /** @param status 0 for no response; {@code retryAfterSeconds} null when absent */
    record Answer(int status, Long retryAfterSeconds, long latencyMillis, Double crawlDelaySeconds) {
        Answer(int status, Long retryAfterSeconds, long latencyMillis) {
            this(status, retryAfterSeconds, latencyMillis, null);
        }
    }

    Answer answer(long nowNanos);
}
