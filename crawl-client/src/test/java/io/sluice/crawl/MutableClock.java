package io.sluice.crawl;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves by hand. */
final class MutableClock implements InstantSource {
    private volatile Instant now = Instant.parse("2026-11-22T09:00:00Z");

    void advance(Duration by) {
        now = now.plus(by);
    }

    void advanceMillis(long millis) {
        advance(Duration.ofMillis(millis));
    }

    @Override
    public Instant instant() {
        return now;
    }
}
