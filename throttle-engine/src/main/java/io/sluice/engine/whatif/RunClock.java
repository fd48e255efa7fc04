package io.sluice.engine.whatif;

import java.time.Instant;
import java.time.InstantSource;

/** A what-if run's time: moved forward by the run as requests and timers come, never back. */
final class RunClock implements InstantSource {
    private volatile long millis;

    RunClock(long startMillis) {
        this.millis = startMillis;
    }

    /** Moves to {@code target} unless the clock is already past it. */
    void advanceTo(long target) {
        if (target > millis) {
            millis = target;
        }
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }
}
