package io.sluice.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand (thread-safe, so hammer tests can share it); for every package's tests. */
public final class ManualClock implements InstantSource {
    private final AtomicLong millis;

    public ManualClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    public static ManualClock at(String instant) {
        return new ManualClock(Instant.parse(instant));
    }

    public void advance(Duration duration) {
        millis.addAndGet(duration.toMillis());
    }

    public void advanceMillis(long delta) {
        millis.addAndGet(delta);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }
}
