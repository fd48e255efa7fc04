package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.util.random.RandomGenerator;

/**
 * What holds a domain's grants back after a slow-down answer: the {@code Retry-After} floor it named, or without
 * one, when the answer was an incident, a backoff that doubles per incident (docs/manual/governor.md, "AIMD,
 * backoff, breaker and give-up"). The grant path reads its end without a lock; it changes under its domain's
 * lock. Times are microseconds.
 */
final class Block {
    private static final long SECOND = 1_000_000;

    private volatile long until = Long.MIN_VALUE;
    private volatile PermitReason reason;
    private int backoffLevel;
    private long lastBackoffEnd = Long.MIN_VALUE;

    /** No grant before this; {@code Long.MIN_VALUE} when nothing ever blocked. */
    long until() {
        return until;
    }

    /** {@code RETRY_AFTER} or {@code BACKOFF}; meaningful only while blocked. */
    PermitReason reason() {
        return reason;
    }

    int backoffLevel() {
        return backoffLevel;
    }

    /** When the last backoff ended (or ends), {@code Long.MIN_VALUE} for none. */
    long lastBackoffEnd() {
        return lastBackoffEnd;
    }

    /** The site named its own wait: a floor, which a shorter one heard later does not shorten. */
    void retryAfter(long now, long seconds) {
        long end = now + seconds * SECOND;
        if (end > until) {
            until = end;
            reason = PermitReason.RETRY_AFTER;
        }
    }

    /** A slow-down answer without Retry-After: block for a doubling, jittered, capped time. */
    void backOff(long now, GovernorPolicy policy, RandomGenerator random) {
        if (now < until) {
            return; // an answer to a request sent before the block: the same incident
        }
        long forgive = policy.backoffForgiveSeconds() * SECOND;
        backoffLevel = lastBackoffEnd != Long.MIN_VALUE && now - lastBackoffEnd <= forgive ? backoffLevel + 1 : 0;
        long full = Math.min((long) policy.backoffBaseMillis() << Math.min(backoffLevel, 30),
                policy.backoffMaxMillis()) * 1_000;
        // "Equal jitter": at least half the backoff, so workers that were told the same thing spread out.
        long block = full / 2 + random.nextLong(full / 2 + 1);
        until = now + block;
        reason = PermitReason.BACKOFF;
        lastBackoffEnd = until;
    }

    /** A healthy answer: once the block is over, each one steps the backoff down (the incident is passing). */
    void healthy(long now) {
        if (backoffLevel > 0 && now >= until) {
            backoffLevel--;
        }
    }

    /** Takes the cluster's block, which arrives as a duration from now (the cluster's clock is not this node's). */
    void mirror(long now, long blockedForMicros, PermitReason blockReason, int level) {
        until = blockedForMicros > 0 ? now + blockedForMicros : Long.MIN_VALUE;
        reason = blockedForMicros > 0 ? blockReason : null;
        backoffLevel = level;
    }

    void clear() {
        until = Long.MIN_VALUE;
        reason = null;
        backoffLevel = 0;
        lastBackoffEnd = Long.MIN_VALUE;
    }
}
