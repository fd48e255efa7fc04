package io.sluice.engine.governor;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

/**
 * A site that serves at most its capacity per sliding second and refuses anything above it the
 * way real rate limiters do, in one of their several dialects ({@link Refusal}); its latency is
 * drawn from a {@link LatencyModel}. Refusals are quick (a quarter of a drawn latency): the
 * limiter answers before the application does.
 */
final class RateLimitedSite implements SimSite {
    private static final long SECOND = 1_000_000_000L;

    /** What the site answers above its capacity. */
    enum Refusal {
        TOO_MANY(429, null),
        TOO_MANY_RETRY_AFTER(429, 1L),
        UNAVAILABLE(503, null),
        UNAVAILABLE_RETRY_AFTER(503, 2L),
        FORBIDDEN(403, null);

        final int status;
        final Long retryAfterSeconds;

        Refusal(int status, Long retryAfterSeconds) {
            this.status = status;
            this.retryAfterSeconds = retryAfterSeconds;
        }
    }

    private final DoubleSupplier capacity;
    private final LatencyModel latency;
    private final Refusal refusal;
    private final SplittableRandom random;
    private final Deque<Long> served = new ArrayDeque<>();

    RateLimitedSite(DoubleSupplier capacityPerSecond, LatencyModel latency, Refusal refusal, long seed) {
        this.capacity = capacityPerSecond;
        this.latency = latency;
        this.refusal = refusal;
        this.random = new SplittableRandom(seed);
    }

    /** The textbook site: 429 without {@code Retry-After}, always {@code latencyMillis}. */
    RateLimitedSite(DoubleSupplier capacityPerSecond, long latencyMillis) {
        this(capacityPerSecond, LatencyModel.fixed(latencyMillis), Refusal.TOO_MANY, 0);
    }

    @Override
    public Answer answer(long now) {
        while (!served.isEmpty() && served.peekFirst() <= now - SECOND) {
            served.removeFirst();
        }
        long millis = latency.millis(random);
        if (served.size() >= capacity.getAsDouble()) {
            return new Answer(refusal.status, refusal.retryAfterSeconds, Math.max(1, millis / 4));
        }
        served.addLast(now);
        return new Answer(200, null, millis);
    }
}
