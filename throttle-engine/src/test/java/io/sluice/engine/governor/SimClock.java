package io.sluice.engine.governor;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** Simulated time, to the nanosecond, moved only by the test or the simulation. */
final class SimClock implements InstantSource {
    static final Instant START = Instant.parse("2026-11-22T08:00:00Z");
    private volatile long nanos;

    long nanos() {
        return nanos;
    }

    void setNanos(long value) {
        nanos = value;
    }

    void advance(Duration duration) {
        nanos += duration.toNanos();
    }

    double seconds() {
        return nanos / 1e9;
    }

    @Override
    public Instant instant() {
        return START.plusNanos(nanos);
    }
}
