package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;

/**
 * How one domain's rate is learned (docs/manual/governor.md, "How the rate is learned"): while workers want the
 * domain and answers are healthy it rises, geometrically in slow start (until the domain's first slow-down
 * signal), additively after it; a slow-down signal (a slow-down answer, or a {@link LatencySignal}) cuts it, once
 * per round trip. Climbing well above the rate of the last signal without a new one means the site has grown:
 * slow start again, so a capacity that rises is found in seconds, not minutes. Sets the rate of the
 * {@link DomainPace} it is given; guarded by its domain's lock. Times are microseconds.
 */
final class RateLearner {
    private static final long SECOND = 1_000_000;
    /**
     * Above the rate of the last slow-down signal by this factor, without a new signal, the site has
     * grown: probe geometrically again. The additive sawtooth under a steady capacity stays below it.
     */
    static final double PROBE_ABOVE_LAST_SIGNAL = 1.25;
    /**
     * The additive increase gains at most this share of the rate per request the rate lets through, so a
     * small site is probed as gently, per request, as a large one (at 0.1 req/s per second a 1 req/s site
     * would climb 10% a second and see a slow-down one request in four). Above 4.5 req/s
     * {@code increasePerSecond} is the smaller.
     */
    static final double MAX_RISE_PER_REQUEST = 0.005;
    /** Below this share of the rate of the last signal the climb is {@link #RECOVERY_SPEED} times faster. */
    static final double RECOVER_TO = 0.95;
    static final double RECOVERY_SPEED = 4;
    /** Above it, probing for more, this share of the usual climb. */
    static final double PROBE_SPEED = 0.2;

    private long lastIncrease = Long.MIN_VALUE;
    private long lastDecrease = Long.MIN_VALUE;
    /**
     * The last cut answered a slow-down answer (not a latency signal): the climb back to just under the rate
     * it came from is fast. After a latency signal it is not: that rate was building a queue.
     */
    private boolean recoverFast;
    /** A healthy answer came since the last slow-down: the next slow-down is one the rate cut answers. */
    private boolean healthySinceSlowDown = true;
    private boolean slowStart = true;
    private double lastSignalRate = Double.NaN;

    /** The rate still doubles (no slow-down signal yet, or the site has grown since the last). */
    boolean slowStart() {
        return slowStart;
    }

    /**
     * A slow-down the rate cut answers: the first since a healthy answer (the cut it brings is the answer),
     * or one within the last cut's round trip (an answer to a request already in flight at that cut). One
     * that follows a cut, after its round trip or after the backoff that came with it, with nothing healthy
     * between, says the cut did not help: an incident.
     */
    boolean absorbedByCut(long now, DomainPace pace, long lastBackoffEnd) {
        if (healthySinceSlowDown) {
            return true;
        }
        boolean inFlightAtCut = lastDecrease != Long.MIN_VALUE && now - lastDecrease < cutCooldown(pace);
        boolean blockSinceCutOver = lastBackoffEnd != Long.MIN_VALUE && lastBackoffEnd >= lastDecrease
                && now >= lastBackoffEnd;
        return inFlightAtCut && !blockSinceCutOver;
    }

    /**
     * A slow-down answer: a cut, after which the climb back to just under the rate it came from is fast.
     *
     * @param delivered the rate that actually went through lately (requests per second)
     */
    void slowedDown(long now, GovernorPolicy policy, DomainPace pace, double delivered) {
        healthySinceSlowDown = false;
        recoverFast = true;
        decrease(now, policy, pace, delivered);
    }

    /** A latency signal on a healthy answer: a cut, after which the climb is the usual one. */
    void queueBuilding(long now, GovernorPolicy policy, DomainPace pace, double delivered) {
        healthySinceSlowDown = true;
        recoverFast = false;
        decrease(now, policy, pace, delivered);
    }

    /**
     * A healthy answer: while workers want the domain ({@code busy}), the rate rises with the time since the
     * last change.
     */
    void healthy(long now, GovernorPolicy policy, DomainPace pace, boolean busy) {
        healthySinceSlowDown = true;
        if (busy && lastIncrease != Long.MIN_VALUE) {
            double rate = pace.rate();
            double seconds = Math.min(now - lastIncrease, SECOND) / (double) SECOND;
            if (!slowStart && rate > lastSignalRate * PROBE_ABOVE_LAST_SIGNAL) {
                slowStart = true;
            }
            double doubling = policy.slowStartDoublingSeconds();
            double next = slowStart && doubling > 0 ? rate * Math.pow(2, seconds / doubling)
                    : rate + additivePerSecond(policy, rate) * seconds;
            pace.setRate(policy.clampRate(next));
        }
        lastIncrease = now;
    }

    /** An operator's rate: the operator knows something; adaptation goes on additively from there. */
    void operatorSet(double rate) {
        slowStart = false;
        lastSignalRate = rate;
    }

    /** Takes the cluster's slow-start flag (the cluster learns the rate; this copy paces if it goes away). */
    void mirrorSlowStart(boolean shared) {
        slowStart = shared;
    }

    void reset() {
        healthySinceSlowDown = true;
        recoverFast = false;
        lastIncrease = Long.MIN_VALUE;
        lastDecrease = Long.MIN_VALUE;
        slowStart = true;
        lastSignalRate = Double.NaN;
    }

    /** Answers to requests already in flight at a cut arrive within this: max(1 s, two intervals). */
    private static long cutCooldown(DomainPace pace) {
        return Math.max(SECOND, 2 * pace.intervalMicros());
    }

    /**
     * The additive climb. After a cut for a slow-down answer: fast back to just under the rate the cut came
     * from (the site served nearly that a moment ago), slow above it, where the next slow-down waits; so a
     * site spends its cycle near its capacity, not half of it climbing from the cut (as CUBIC does for TCP,
     * RFC 9438). After a latency signal, the usual climb: that rate was building a queue.
     */
    private double additivePerSecond(GovernorPolicy policy, double rate) {
        double perSecond = Math.min(policy.increasePerSecond(), MAX_RISE_PER_REQUEST * rate * rate);
        if (!recoverFast || Double.isNaN(lastSignalRate)) {
            return perSecond;
        }
        return rate < RECOVER_TO * lastSignalRate ? RECOVERY_SPEED * perSecond : PROBE_SPEED * perSecond;
    }

    /** A slow-down signal: slow start ends, and the rate is cut once per round trip. */
    private void decrease(long now, GovernorPolicy policy, DomainPace pace, double delivered) {
        slowStart = false;
        // Answers to requests already in flight at the cut say nothing new: one cut per round trip.
        if (lastDecrease == Long.MIN_VALUE || now - lastDecrease >= cutCooldown(pace)) {
            // Cut from what actually went through when that is less than the rate (as TCP halves the
            // data in flight, not an unused window, RFC 5681): a rate nobody could use says nothing.
            double from = Math.min(pace.rate(), delivered);
            lastSignalRate = from;
            pace.setRate(policy.clampRate(from * policy.decreaseFactor()));
            lastDecrease = now;
        }
        lastIncrease = now;
    }
}
