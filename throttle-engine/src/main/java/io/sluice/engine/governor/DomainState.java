package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Instant;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;

/**
 * What the governor knows about one domain. The grant path reads volatile gates and takes its slot
 * from the {@link Pacer} by compare-and-set; everything learned from feedback changes under the
 * object's lock. Times are microseconds of the governor's clock.
 */
final class DomainState {
    private static final long SECOND = 1_000_000;
    /** A demand seen this recently counts as "workers are waiting for this domain". */
    private static final long BUSY_WINDOW = 2 * SECOND;
    /** Longest Retry-After obeyed; a larger one is a misconfigured site, not a day-long ban. */
    static final long MAX_RETRY_AFTER_SECONDS = 86_400;

    final String domain;
    private final Pacer pacer = new Pacer();
    private final CircuitBreaker breaker = new CircuitBreaker();
    private final StatusHistory statuses = new StatusHistory();

    private volatile double rate;
    private volatile long intervalMicros;
    private volatile long minDelayMicros;
    private volatile long crawlDelayMicros;
    private volatile long blockedUntil = Long.MIN_VALUE;
    private volatile PermitReason blockReason;
    private volatile boolean breakerClosed = true;
    private volatile boolean givenUp;
    private volatile long lastDemand = Long.MIN_VALUE;
    private volatile long lastSeen;

    private long lastIncrease = Long.MIN_VALUE;
    private long lastDecrease = Long.MIN_VALUE;
    private int backoffLevel;
    private long lastBackoffEnd = Long.MIN_VALUE;
    private int consecutiveErrors;
    private double latencyBaseline;
    private double latencyRecent;
    private int latencySamples;
    private long granted;
    private long denied;
    private long responses;
    private long slowDowns;

    DomainState(String domain, double initialRate, long operatorMinDelayMicros, boolean givenUp, long now) {
        this.domain = domain;
        this.minDelayMicros = operatorMinDelayMicros;
        this.givenUp = givenUp;
        this.lastSeen = now;
        setRate(initialRate);
    }

    Permit acquire(long now, GovernorPolicy policy) {
        lastSeen = now;
        if (givenUp) {
            return Permit.givenUp(domain);
        }
        long blocked = blockedUntil;
        if (now < blocked) {
            return deny(Permit.waitFor(domain, blocked - now, blockReason));
        }
        boolean trial = false;
        if (!breakerClosed) {
            synchronized (this) {
                long wait = breaker.admit(now, policy);
                if (wait > 0) {
                    return deny(Permit.waitFor(domain, wait, PermitReason.BREAKER_OPEN));
                }
                trial = breaker.state() == BreakerState.HALF_OPEN;
            }
        }
        long interval = intervalMicros;
        long slot = pacer.nextSlot();
        long wait = pacer.tryAcquire(now, interval);
        if (wait > 0) {
            lastDemand = now;
            if (trial) {
                synchronized (this) {
                    breaker.returnTrial();
                }
            }
            return deny(Permit.waitFor(domain, wait, PermitReason.PACING));
        }
        if (slot == Long.MIN_VALUE || now - slot < interval) {
            // The worker was ready when the slot opened: the pacer, not demand, is the limit.
            lastDemand = now;
        }
        synchronized (this) {
            granted++;
        }
        return Permit.grant(domain);
    }

    private Permit deny(Permit permit) {
        synchronized (this) {
            denied++;
        }
        return permit;
    }

    /** Learns from one response; returns true when this response gave the domain up. */
    synchronized boolean feedback(Feedback feedback, long now, GovernorPolicy policy, RandomGenerator random) {
        lastSeen = now;
        responses++;
        statuses.add(feedback.status());
        if (feedback.crawlDelaySeconds() != null) {
            crawlDelayMicros = Math.round(feedback.crawlDelaySeconds() * SECOND);
            applyInterval();
        }
        boolean error = feedback.isError();
        if (breaker.record(now, error, policy)) {
            breakerClosed = false;
        } else if (breaker.state() == BreakerState.CLOSED) {
            breakerClosed = true;
        }
        if (feedback.retryAfterSeconds() != null && feedback.retryAfterSeconds() > 0) {
            long until = now + Math.min(feedback.retryAfterSeconds(), MAX_RETRY_AFTER_SECONDS) * SECOND;
            if (until > blockedUntil) {
                blockedUntil = until;
                blockReason = PermitReason.RETRY_AFTER;
            }
        } else if (feedback.status() == 429) {
            backOff(now, policy, random);
        }
        if (feedback.isSlowDown()) {
            slowDowns++;
            decrease(now, policy);
        } else if (!error) {
            consecutiveErrors = 0;
            if (inflated(feedback.latencyMillis(), policy)) {
                decrease(now, policy);
            } else {
                increase(now, policy);
            }
        }
        if (error && ++consecutiveErrors >= policy.giveUpAfterErrors() && !givenUp) {
            givenUp = true;
            return true;
        }
        return false;
    }

    /** A 429 without Retry-After: block for a doubling, jittered, capped time. */
    private void backOff(long now, GovernorPolicy policy, RandomGenerator random) {
        if (now < blockedUntil) {
            return; // an answer to a request sent before the block: the same incident
        }
        long forgive = policy.backoffForgiveSeconds() * SECOND;
        backoffLevel = lastBackoffEnd != Long.MIN_VALUE && now - lastBackoffEnd <= forgive ? backoffLevel + 1 : 0;
        long full = Math.min((long) policy.backoffBaseMillis() << Math.min(backoffLevel, 30),
                policy.backoffMaxMillis()) * 1_000;
        // "Equal jitter": at least half the backoff, so workers that were told the same thing spread out.
        long block = full / 2 + random.nextLong(full / 2 + 1);
        blockedUntil = now + block;
        blockReason = PermitReason.BACKOFF;
        lastBackoffEnd = blockedUntil;
    }

    private boolean inflated(long latencyMillis, GovernorPolicy policy) {
        if (latencyMillis < 0) {
            return false;
        }
        double latency = latencyMillis;
        if (latencySamples == 0) {
            latencyBaseline = latency;
            latencyRecent = latency;
        } else {
            latencyRecent += 0.3 * (latency - latencyRecent);
            // The baseline follows improvements at once and degradations slowly, so a slow spell
            // shows as inflation instead of becoming the new normal.
            latencyBaseline += (latency < latencyBaseline ? 0.5 : 0.01) * (latency - latencyBaseline);
        }
        latencySamples++;
        return policy.latencyInflation() > 0 && latencySamples >= 10
                && latencyRecent > policy.latencyInflation() * Math.max(latencyBaseline, 1.0);
    }

    private void increase(long now, GovernorPolicy policy) {
        if (busy(now) && lastIncrease != Long.MIN_VALUE) {
            double seconds = Math.min(now - lastIncrease, SECOND) / (double) SECOND;
            setRate(policy.clampRate(rate + policy.increasePerSecond() * seconds));
        }
        lastIncrease = now;
    }

    private boolean busy(long now) {
        long demand = lastDemand;
        return demand != Long.MIN_VALUE && now - demand <= BUSY_WINDOW;
    }

    private void decrease(long now, GovernorPolicy policy) {
        // Answers to requests already in flight at the cut say nothing new: one cut per round trip.
        long cooldown = Math.max(SECOND, 2 * intervalMicros);
        if (lastDecrease == Long.MIN_VALUE || now - lastDecrease >= cooldown) {
            setRate(policy.clampRate(rate * policy.decreaseFactor()));
            lastDecrease = now;
        }
        lastIncrease = now;
    }

    /** Keeps the learned rate inside the policy's bounds after a live edit. */
    synchronized void clamp(GovernorPolicy policy) {
        double clamped = policy.clampRate(rate);
        if (clamped != rate) {
            setRate(clamped);
        }
    }

    synchronized void setRate(double newRate) {
        rate = newRate;
        applyInterval();
    }

    synchronized void setOperatorMinDelay(long micros) {
        minDelayMicros = micros;
        applyInterval();
    }

    private void applyInterval() {
        long paced = (long) Math.ceil(SECOND / rate);
        long interval = Math.max(paced, Math.max(minDelayMicros, crawlDelayMicros));
        long old = intervalMicros;
        intervalMicros = interval;
        if (old != 0 && old != interval) {
            pacer.respace(old, interval);
        }
    }

    /** Forgets everything learned; keeps the operator's minimum delay and the given-up mark. */
    synchronized void reset(double initialRate) {
        blockedUntil = Long.MIN_VALUE;
        blockReason = null;
        backoffLevel = 0;
        lastBackoffEnd = Long.MIN_VALUE;
        lastIncrease = Long.MIN_VALUE;
        lastDecrease = Long.MIN_VALUE;
        latencySamples = 0;
        crawlDelayMicros = 0;
        breaker.close();
        breakerClosed = true;
        statuses.clear();
        consecutiveErrors = 0;
        pacer.reset();
        intervalMicros = 0;
        setRate(initialRate);
    }

    /** An operator brings a given-up domain back, with a closed breaker and a clean error count. */
    synchronized void revive() {
        givenUp = false;
        consecutiveErrors = 0;
        breaker.close();
        breakerClosed = true;
    }

    boolean givenUp() {
        return givenUp;
    }

    /** Whether the domain holds something that must not be forgotten yet (a block). */
    long blockedUntil() {
        return blockedUntil;
    }

    long lastSeen() {
        return lastSeen;
    }

    synchronized DomainView view(long now, LongFunction<Instant> toInstant) {
        long blocked = blockedUntil;
        return new DomainView(domain, rate, SECOND / (double) intervalMicros, minDelayMicros / 1_000,
                crawlDelayMicros / 1_000, breaker.state() == BreakerState.OPEN && now >= breaker.openUntil()
                        ? BreakerState.HALF_OPEN : breaker.state(),
                breaker.calls(now), breaker.errors(now),
                blocked > now ? toInstant.apply(blocked) : null, blocked > now ? blockReason : null,
                backoffLevel, consecutiveErrors, givenUp, statuses.oldestFirst(),
                granted, denied, responses, slowDowns, toInstant.apply(lastSeen));
    }
}
