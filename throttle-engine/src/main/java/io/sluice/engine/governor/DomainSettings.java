package io.sluice.engine.governor;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * What must survive a restart about one domain: the operator's minimum delay and whether the
 * domain was given up. What the governor learned (rate, backoff, breaker) is relearned.
 *
 * @param minDelayMillis the operator's minimum gap between two requests, or 0 for none
 * @param givenUpAt      when the domain was given up, or null when it is not
 * @param givenUpReason  why, or null
 */
public record DomainSettings(long minDelayMillis, Instant givenUpAt, String givenUpReason) {
    public static final DomainSettings NONE = new DomainSettings(0, null, null);

    public boolean givenUp() {
        return givenUpAt != null;
    }

    @JsonIgnore
    public boolean hasMinDelay() {
        return minDelayMillis > 0;
    }

    @JsonIgnore
    public boolean isNone() {
        return minDelayMillis == 0 && givenUpAt == null;
    }

    DomainSettings withMinDelay(long millis) {
        return new DomainSettings(millis, givenUpAt, givenUpReason);
    }

    DomainSettings withGivenUp(Instant at, String reason) {
        return new DomainSettings(minDelayMillis, at, reason);
    }
}
