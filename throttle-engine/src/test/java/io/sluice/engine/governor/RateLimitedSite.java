package io.sluice.engine.governor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.DoubleSupplier;

/**
 * A site that serves at most its capacity per sliding second and answers 429, without
 * {@code Retry-After}, to anything above it, the way many real rate limiters do.
 */
final class RateLimitedSite implements SimSite {
    private static final long SECOND = 1_000_000_000L;
    private final DoubleSupplier capacity;
    private final long latencyMillis;
    private final Deque<Long> served = new ArrayDeque<>();

    RateLimitedSite(DoubleSupplier capacityPerSecond, long latencyMillis) {
        this.capacity = capacityPerSecond;
        this.latencyMillis = latencyMillis;
    }

    @Override
    public Answer answer(long now) {
        while (!served.isEmpty() && served.peekFirst() <= now - SECOND) {
            served.removeFirst();
        }
        if (served.size() >= capacity.getAsDouble()) {
            return new Answer(429, null, latencyMillis / 2);
        }
        served.addLast(now);
        return new Answer(200, null, latencyMillis);
    }
}
