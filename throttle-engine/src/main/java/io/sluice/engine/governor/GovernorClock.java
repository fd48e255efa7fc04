package io.sluice.engine.governor;

import java.time.Instant;
import java.time.InstantSource;

/** The governor's injected clock in its unit of time, microseconds, and back to instants for its views. */
final class GovernorClock {
    private final InstantSource source;

    GovernorClock(InstantSource source) {
        this.source = source;
    }

    long micros() {
        Instant now = source.instant();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    Instant instant() {
        return source.instant();
    }

    static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000);
    }
}
