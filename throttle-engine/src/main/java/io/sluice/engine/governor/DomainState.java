package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Instant;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;

/**
 * What the governor knows about one domain. The grant path reads volatile gates and takes its slot
 * from the {@link Pacer} by compare-and-set; everything learned from feedback changes under the
 * object's lock. Times are microseconds of the governor's clock.
 *
 * <p>How the rate is learned: while workers want the domain (demand) and answers are healthy it
 * rises, geometrically in slow start (until the domain's first slow-down signal), additively after
 * it; a slow-down signal (a slow-down answer, or a {@link LatencySignal}) cuts it, once per round
 * trip. Climbing well above the rate of the last signal without a new one means the site has grown:
 * slow start again, so a capacity that rises is found in seconds, not minutes.
 */
final class DomainState {
    private static final long SECOND = 1_000_000;
    /** A demand seen this recently (or within two intervals) counts as "workers are waiting for this domain". */
    private static final long BUSY_WINDOW = 2 * SECOND;
    /**
     * Above the rate of the last slow-down signal by this factor, without a new signal, the site has
     * grown: probe geometrically again. The additive sawtooth under a steady capacity stays below it.
     */
    static final double PROBE_ABOVE_LAST_SIGNAL = 1.25;
    /**
     * Grants further apart than this many intervals (on a moving average) mean the pacer is not the
     * limit: the workers are (all busy with slow answers). Raising the rate then teaches nothing about
     * the site and only lets a burst through later, so it waits (BBR calls such samples app-limited).
     */
    static final double APP_LIMITED_GAPS = 1.5;
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
    /** Longest Retry-After obeyed; a larger one is a misconfigured site, not a day-long ban. */
    static final long MAX_RETRY_AFTER_SECONDS = 86_400;

    final String domain;
    private final Pacer pacer = new Pacer();
    private final CircuitBreaker breaker = new CircuitBreaker();
    private final StatusHistory statuses = new StatusHistory();
    private final LatencySignal latency = new LatencySignal();

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
    private long lastGrant = Long.MIN_VALUE;
    private double grantGap;
    private long lastDecrease = Long.MIN_VALUE;
    private int backoffLevel;
    private long lastBackoffEnd = Long.MIN_VALUE;
    /**
     * The last cut answered a slow-down answer (not a latency signal): the climb back to just under the rate
     * it came from is fast. After a latency signal it is not: that rate was building a queue.
     */
    private boolean recoverFast;
    /** A healthy answer came since the last slow-down: the next slow-down is one the rate cut answers. */
    private boolean healthySinceSlowDown = true;
    private int consecutiveErrors;
    private boolean slowStart = true;
    private double lastSignalRate = Double.NaN;
    private boolean servedBefore;
    private long granted;
    private long denied;
    private long responses;
    private long slowDowns;
    /** The cluster's breaker counts from its last answer, or -1 when this node judges alone. */
    private int clusterCalls = -1;
    private int clusterErrors = -1;

    DomainState(String domain, double initialRate, long operatorMinDelayMicros, boolean givenUp, long now) {
        this.domain = domain;
        this.minDelayMicros = operatorMinDelayMicros;
        this.givenUp = givenUp;
        this.lastSeen = now;
        setRate(initialRate);
    }

    Permit acquire(long now, GovernorPolicy policy) {
        return acquire(now, policy, 1);
    }

    /**
     * @param share how many nodes pace this domain each on its own (a cluster node that cannot reach the
     *              cluster's state): each grants at {@code 1 / share} of the rate, so together they keep it
     */
    Permit acquire(long now, GovernorPolicy policy, int share) {
        lastSeen = now;
        if (givenUp) {
            return Permit.givenUp(domain);
        }
        long blocked = blockedUntil;
        if (now < blocked) {
            return deny(now, Permit.waitFor(domain, blocked - now, blockReason));
        }
        boolean trial = false;
        if (!breakerClosed) {
            synchronized (this) {
                long wait = breaker.admit(now, policy);
                if (wait > 0) {
                    return deny(now, Permit.waitFor(domain, wait, PermitReason.BREAKER_OPEN));
                }
                trial = breaker.state() == BreakerState.HALF_OPEN;
            }
        }
        long interval = intervalMicros * Math.max(1, share);
        long slot = pacer.nextSlot();
        long wait = pacer.tryAcquire(now, interval);
        if (wait > 0) {
            if (trial) {
                synchronized (this) {
                    breaker.returnTrial();
                }
            }
            return deny(now, Permit.waitFor(domain, wait, PermitReason.PACING));
        }
        if (slot == Long.MIN_VALUE || now - slot < interval) {
            // The worker was ready when the slot opened: the pacer, not demand, is the limit. A worker
            // that polls comes back after waitMillis plus its own round trip, well within an interval.
            lastDemand = now;
        }
        countGrant(now);
        return Permit.grant(domain);
    }

    /**
     * When a permit could be granted next: the next slot, or the end of a block or of an open breaker,
     * whichever is later ({@code Long.MIN_VALUE} for a domain never granted); {@code Long.MAX_VALUE} when
     * given up. What {@link CrawlGovernor#acquireAny} orders the domains it is asked about by.
     */
    synchronized long readyAt() {
        if (givenUp) {
            return Long.MAX_VALUE;
        }
        long at = Math.max(pacer.nextSlot(), blockedUntil);
        return breaker.state() == BreakerState.OPEN ? Math.max(at, breaker.openUntil()) : at;
    }

    /** A worker asked for this domain among others and was given another: it still wants this one. */
    void wanted(long now) {
        lastSeen = now;
        lastDemand = now;
    }

    private synchronized void countGrant(long now) {
        granted++;
        // A gap that spans a block (Retry-After, backoff, open breaker) is the governor's doing,
        // not the workers': it says nothing about what they would use.
        if (lastGrant != Long.MIN_VALUE && !blockedSince(lastGrant)) {
            grantGap += 0.25 * (now - lastGrant - grantGap);
        }
        lastGrant = now;
    }

    /**
     * A refused worker wants the domain, whether the server holds its call or it polls again after
     * {@code waitMillis}: both are demand.
     */
    private Permit deny(long now, Permit permit) {
        lastDemand = now;
        synchronized (this) {
            denied++;
        }
        return permit;
    }

    /** Learns from one response; returns true when this response gave the domain up. */
    synchronized boolean feedback(Feedback feedback, long now, GovernorPolicy policy, RandomGenerator random) {
        return judge(observe(feedback, now, policy), now, policy, random);
    }

    /**
     * The part of learning from a response that stays with the node that heard it: the counters, the last
     * statuses, the robots.txt delay, whether the domain served this crawler, and the latency detector,
     * whose verdict is part of what it returns. {@link #judge} (here, or in a shared ledger) does the rest.
     */
    synchronized Observation observe(Feedback feedback, long now, GovernorPolicy policy) {
        lastSeen = now;
        responses++;
        statuses.add(feedback.status());
        Long crawlDelay = null;
        if (feedback.crawlDelaySeconds() != null) {
            crawlDelayMicros = Math.round(feedback.crawlDelaySeconds() * SECOND);
            crawlDelay = crawlDelayMicros;
            applyInterval();
        }
        int status = feedback.status();
        boolean error = feedback.isError();
        boolean slowDown = isSlowDown(status);
        if (status >= 200 && status < 400) {
            servedBefore = true;
        }
        boolean latencySignal = false;
        if (slowDown) {
            slowDowns++;
            latency.signalled();
        } else if (!error) {
            latencySignal = latency.add(feedback.latencyMillis(), policy);
        }
        Long retryAfter = feedback.retryAfterSeconds() != null && feedback.retryAfterSeconds() > 0
                ? Math.min(feedback.retryAfterSeconds(), MAX_RETRY_AFTER_SECONDS) : null;
        return new Observation(status, error, slowDown, retryAfter, latencySignal, crawlDelay);
    }

    /**
     * What a response means for the domain's pace: the breaker, the {@code Retry-After} floor or the backoff,
     * the rate's cut or rise, give-up. Returns true when this response gave the domain up.
     */
    synchronized boolean judge(Observation seen, long now, GovernorPolicy policy, RandomGenerator random) {
        boolean error = seen.error();
        boolean slowDown = seen.slowDown();
        // A slow-down the rate cut answers is AIMD at work, not an incident: no backoff, and no error for the
        // breaker. A small site crawled near its capacity gives one now and then (docs/manual/governor.md,
        // "AIMD, backoff, breaker and give-up").
        boolean incident = slowDown && !absorbedByCut(now);
        if (breaker.record(now, error || incident, policy)) {
            breakerClosed = false;
        } else if (breaker.state() == BreakerState.CLOSED) {
            breakerClosed = true;
        }
        if (seen.retryAfterSeconds() != null) {
            long until = now + seen.retryAfterSeconds() * SECOND;
            if (until > blockedUntil) {
                blockedUntil = until;
                blockReason = PermitReason.RETRY_AFTER;
            }
        } else if (incident) {
            backOff(now, policy, random);
        }
        if (slowDown) {
            healthySinceSlowDown = false;
            recoverFast = true;
            decrease(now, policy);
        } else if (!error) {
            consecutiveErrors = 0;
            healthySinceSlowDown = true;
            if (backoffLevel > 0 && now >= blockedUntil) {
                backoffLevel--; // the incident is passing: each healthy answer after the block steps it down
            }
            if (seen.latencySignal()) {
                recoverFast = false;
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

    /**
     * A slow-down the rate cut answers: the first since a healthy answer (the cut it brings is the answer),
     * or one within the last cut's round trip (an answer to a request already in flight at that cut). One
     * that follows a cut, after its round trip or after the backoff that came with it, with nothing healthy
     * between, says the cut did not help: an incident.
     */
    private boolean absorbedByCut(long now) {
        if (healthySinceSlowDown) {
            return true;
        }
        boolean inFlightAtCut = lastDecrease != Long.MIN_VALUE && now - lastDecrease < cutCooldown();
        boolean blockSinceCutOver = lastBackoffEnd != Long.MIN_VALUE && lastBackoffEnd >= lastDecrease
                && now >= lastBackoffEnd;
        return inFlightAtCut && !blockSinceCutOver;
    }

    /** Answers to requests already in flight at a cut arrive within this: max(1 s, two intervals). */
    private long cutCooldown() {
        return Math.max(SECOND, 2 * intervalMicros);
    }

    /**
     * What a site says when it means "slower": 429, 503, and a 403 from a domain that has served this
     * crawler before (a site that never served it is refusing it, not pacing it).
     */
    private boolean isSlowDown(int status) {
        return status == 429 || status == 503 || status == 403 && servedBefore;
    }

    /** A slow-down answer without Retry-After: block for a doubling, jittered, capped time. */
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

    /** A healthy answer while workers want the domain: the rate rises with the time since the last change. */
    private void increase(long now, GovernorPolicy policy) {
        if (busy(now) && lastIncrease != Long.MIN_VALUE) {
            double seconds = Math.min(now - lastIncrease, SECOND) / (double) SECOND;
            if (!slowStart && rate > lastSignalRate * PROBE_ABOVE_LAST_SIGNAL) {
                slowStart = true;
            }
            double doubling = policy.slowStartDoublingSeconds();
            double next = slowStart && doubling > 0 ? rate * Math.pow(2, seconds / doubling)
                    : rate + additivePerSecond(policy) * seconds;
            setRate(policy.clampRate(next));
        }
        lastIncrease = now;
    }

    /**
     * The additive climb. After a cut for a slow-down answer: fast back to just under the rate the cut came
     * from (the site served nearly that a moment ago), slow above it, where the next slow-down waits; so a
     * site spends its cycle near its capacity, not half of it climbing from the cut (as CUBIC does for TCP,
     * RFC 9438). After a latency signal, the usual climb: that rate was building a queue.
     */
    private double additivePerSecond(GovernorPolicy policy) {
        double perSecond = Math.min(policy.increasePerSecond(), MAX_RISE_PER_REQUEST * rate * rate);
        if (!recoverFast || Double.isNaN(lastSignalRate)) {
            return perSecond;
        }
        return rate < RECOVER_TO * lastSignalRate ? RECOVERY_SPEED * perSecond : PROBE_SPEED * perSecond;
    }

    /** Workers want the domain, and the pacer, not the workers, is what holds them back. */
    private boolean busy(long now) {
        long demand = lastDemand;
        if (demand == Long.MIN_VALUE || now - demand > Math.max(BUSY_WINDOW, 2 * intervalMicros)) {
            return false;
        }
        double gap = lastGrant == Long.MIN_VALUE ? 0
                : blockedSince(lastGrant) ? grantGap : Math.max(grantGap, now - lastGrant);
        return gap <= APP_LIMITED_GAPS * intervalMicros;
    }

    private boolean blockedSince(long time) {
        return blockedUntil > time || breaker.state() != BreakerState.CLOSED && breaker.openUntil() > time;
    }

    /** A slow-down signal: slow start ends, and the rate is cut once per round trip. */
    private void decrease(long now, GovernorPolicy policy) {
        slowStart = false;
        latency.signalled();
        // Answers to requests already in flight at the cut say nothing new: one cut per round trip.
        if (lastDecrease == Long.MIN_VALUE || now - lastDecrease >= cutCooldown()) {
            // Cut from what actually went through when that is less than the rate (as TCP halves the
            // data in flight, not an unused window, RFC 5681): a rate nobody could use says nothing.
            double delivered = lastGrant == Long.MIN_VALUE || grantGap <= 0 ? rate : SECOND / grantGap;
            double from = Math.min(rate, delivered);
            lastSignalRate = from;
            setRate(policy.clampRate(from * policy.decreaseFactor()));
            lastDecrease = now;
        }
        lastIncrease = now;
    }

    /**
     * Takes the cluster's answer for this domain as this node's state: the rate, the interval (with every
     * node's delays), the floor, the breaker, the backoff and error counts. Times arrive as durations from
     * now (the cluster's clock is not this node's). This is also what the node paces on if the cluster
     * becomes unreachable. The given-up mark is the governor's to mirror (it is saved).
     */
    synchronized void mirror(LedgerAnswer answer, long now) {
        rate = answer.rate();
        intervalMicros = Math.max(1, answer.intervalMicros());
        blockedUntil = answer.blockedForMicros() > 0 ? now + answer.blockedForMicros() : Long.MIN_VALUE;
        blockReason = answer.blockedForMicros() > 0 ? answer.blockReason() : null;
        breaker.mirror(answer.breaker(), now + Math.max(0, answer.breakerOpenForMicros()));
        breakerClosed = answer.breaker() == BreakerState.CLOSED;
        backoffLevel = answer.backoffLevel();
        consecutiveErrors = answer.consecutiveErrors();
        slowStart = answer.slowStart();
        if (answer.calls60s() >= 0) {
            clusterCalls = answer.calls60s();
            clusterErrors = answer.errors60s();
        }
    }

    /** The cluster's answer to a permit, counted here as the local pacer's would be. */
    Permit mirrorPermit(LedgerAnswer answer, long now) {
        lastSeen = now;
        mirror(answer, now);
        if (answer.givenUp()) {
            return Permit.givenUp(domain);
        }
        if (!answer.granted()) {
            if (answer.reason() == PermitReason.PACING) {
                pacer.mirror(now + answer.waitMicros());
            }
            return deny(now, Permit.waitFor(domain, answer.waitMicros(), answer.reason()));
        }
        pacer.mirror(now + answer.intervalMicros());
        lastDemand = now;
        countGrant(now);
        return Permit.grant(domain);
    }

    /** The longest of the delays this node knows (the operator's minimum delay, robots.txt), micros. */
    long floorMicros() {
        return Math.max(minDelayMicros, crawlDelayMicros);
    }

    synchronized void mirrorGivenUp(boolean value) {
        givenUp = value;
        if (!value) {
            consecutiveErrors = 0;
        }
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

    /** An operator's rate: the operator knows something; adaptation goes on additively from there. */
    synchronized void setOperatorRate(double newRate) {
        slowStart = false;
        lastSignalRate = newRate;
        setRate(newRate);
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
        clusterCalls = -1;
        clusterErrors = -1;
        blockedUntil = Long.MIN_VALUE;
        blockReason = null;
        backoffLevel = 0;
        lastBackoffEnd = Long.MIN_VALUE;
        healthySinceSlowDown = true;
        recoverFast = false;
        lastIncrease = Long.MIN_VALUE;
        lastDecrease = Long.MIN_VALUE;
        latency.reset();
        slowStart = true;
        lastSignalRate = Double.NaN;
        servedBefore = false;
        crawlDelayMicros = 0;
        breaker.close();
        breakerClosed = true;
        statuses.clear();
        consecutiveErrors = 0;
        pacer.reset();
        lastGrant = Long.MIN_VALUE;
        grantGap = 0;
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
                clusterCalls >= 0 ? clusterCalls : breaker.calls(now),
                clusterErrors >= 0 ? clusterErrors : breaker.errors(now),
                blocked > now ? toInstant.apply(blocked) : null, blocked > now ? blockReason : null,
                backoffLevel, consecutiveErrors, givenUp, statuses.oldestFirst(),
                granted, denied, responses, slowDowns, toInstant.apply(lastSeen), slowStart, latency.baseline());
    }
}
