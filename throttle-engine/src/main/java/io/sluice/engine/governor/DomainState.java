package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Instant;
import java.util.function.LongFunction;
import java.util.random.RandomGenerator;

/**
 * What the governor knows about one domain, and its grant path: given up? blocked? breaker open? otherwise a
 * slot from its {@link DomainPace}. The grant path reads volatile gates and takes its slot by compare-and-set;
 * everything learned from feedback changes under the object's lock, judged here (breaker, {@link Block},
 * errors in a row, give-up) with the rate learned by its {@link RateLearner}. Times are microseconds of the
 * governor's clock.
 */
final class DomainState {
    private static final long SECOND = 1_000_000;
    /** A demand seen this recently (or within two intervals) counts as "workers are waiting for this domain". */
    private static final long BUSY_WINDOW = 2 * SECOND;
    /**
     * Grants further apart than this many intervals (on a moving average) mean the pacer is not the
     * limit: the workers are (all busy with slow answers). Raising the rate then teaches nothing about
     * the site and only lets a burst through later, so it waits (BBR calls such samples app-limited).
     */
    static final double APP_LIMITED_GAPS = 1.5;
    /** {@link RateLearner#MAX_RISE_PER_REQUEST}, here too because the tests that measure the climb read it here. */
    static final double MAX_RISE_PER_REQUEST = RateLearner.MAX_RISE_PER_REQUEST;
    /** Longest Retry-After obeyed; a larger one is a misconfigured site, not a day-long ban. */
    static final long MAX_RETRY_AFTER_SECONDS = 86_400;

    final String domain;
    private final DomainPace pace;
    private final Block block = new Block();
    private final RateLearner learner = new RateLearner();
    private final CircuitBreaker breaker = new CircuitBreaker();
    private final StatusHistory statuses = new StatusHistory();
    private final LatencySignal latency = new LatencySignal();
    private final DomainWorkers workers = new DomainWorkers();

    /** What became of a worker's report. */
    enum Heard {
        /** No grant to spend it on: nothing changed (DomainWorkers, "Credit"). */
        IGNORED,
        /** Judged. */
        JUDGED,
        /** Judged, and it gave the domain up. */
        GAVE_UP
    }

    private volatile boolean breakerClosed = true;
    private volatile boolean givenUp;
    private volatile long lastDemand = Long.MIN_VALUE;
    private volatile long lastSeen;

    private long lastGrant = Long.MIN_VALUE;
    private double grantGap;
    private int consecutiveErrors;
    private boolean servedBefore;
    private long granted;
    private long denied;
    private long responses;
    private long slowDowns;
    private long ignored;
    /** The cluster's breaker counts from its last answer, or -1 when this node judges alone. */
    private int clusterCalls = -1;
    private int clusterErrors = -1;

    DomainState(String domain, double initialRate, long operatorMinDelayMicros, boolean givenUp, long now) {
        this.domain = domain;
        this.givenUp = givenUp;
        this.lastSeen = now;
        this.pace = new DomainPace(initialRate, operatorMinDelayMicros);
    }

    Permit acquire(long now, GovernorPolicy policy) {
        return acquire(now, policy, 1, null);
    }

    /**
     * @param share how many nodes pace this domain each on its own (a cluster node that cannot reach the
     *              cluster's state): each grants at {@code 1 / share} of the rate, so together they keep it
     * @param worker who asks (its token's name), or null for a trusted in-process caller
     */
    Permit acquire(long now, GovernorPolicy policy, int share, String worker) {
        lastSeen = now;
        if (givenUp) {
            return Permit.givenUp(domain);
        }
        long blocked = block.until();
        if (now < blocked) {
            return deny(now, worker, Permit.waitFor(domain, blocked - now, block.reason()));
        }
        boolean trial = false;
        if (!breakerClosed) {
            synchronized (this) {
                long wait = breaker.admit(now, policy);
                if (wait > 0) {
                    return deny(now, worker, Permit.waitFor(domain, wait, PermitReason.BREAKER_OPEN));
                }
                trial = breaker.state() == BreakerState.HALF_OPEN;
            }
        }
        long interval = pace.intervalMicros() * Math.max(1, share);
        long slot = pace.nextSlot();
        // Another worker's turn: the slot is kept for it a little (DomainWorkers, "Turns").
        long wait = workers.holdFor(worker, Math.max(slot, blocked), now, interval);
        if (wait <= 0) {
            wait = workers.heldTurn(worker) && blocked <= slot
                    ? pace.tryAcquireTurn(now, interval, pace.floorMicros() * Math.max(1, share))
                    : pace.tryAcquire(now, interval);
        }
        if (wait > 0) {
            if (trial) {
                synchronized (this) {
                    breaker.returnTrial();
                }
            }
            return deny(now, worker, Permit.waitFor(domain, wait, PermitReason.PACING));
        }
        if (slot == Long.MIN_VALUE || now - slot < interval) {
            // The worker was ready when the slot opened: the pacer, not demand, is the limit. A worker
            // that polls comes back after waitMillis plus its own round trip, well within an interval.
            lastDemand = now;
        }
        countGrant(now, worker);
        return Permit.grant(domain);
    }

    /**
     * When a permit could be granted next: the next slot, or the end of a block or of an open breaker,
     * whichever is later ({@code Long.MIN_VALUE} for a domain never granted); {@code Long.MAX_VALUE} when
     * given up. What {@link AnyDomainChoice} orders the domains it is asked about by.
     */
    synchronized long readyAt() {
        if (givenUp) {
            return Long.MAX_VALUE;
        }
        long at = Math.max(pace.nextSlot(), block.until());
        return breaker.state() == BreakerState.OPEN ? Math.max(at, breaker.openUntil()) : at;
    }

    /** A worker asked for this domain among others and was given another: it still wants this one. */
    void wanted(long now) {
        lastSeen = now;
        lastDemand = now;
    }

    private synchronized void countGrant(long now, String worker) {
        granted++;
        pace.granted(now);
        workers.granted(worker, now);
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
    private Permit deny(long now, String worker, Permit permit) {
        lastDemand = now;
        synchronized (this) {
            denied++;
            workers.refused(worker, now);
        }
        return permit;
    }

    /** Learns from one response from {@code worker} (null: trusted), if it was given a grant to report on. */
    synchronized Heard feedback(Feedback feedback, String worker, long now, GovernorPolicy policy,
            RandomGenerator random) {
        if (!workers.spend(worker, now)) {
            ignored++;
            return Heard.IGNORED;
        }
        Observation seen = observe(feedback, now, policy);
        heard(feedback, now);
        return judge(seen, worker, now, policy, random) ? Heard.GAVE_UP : Heard.JUDGED;
    }

    /**
     * {@link #feedback} for a response {@link #observe}d already (a cluster node judging alone): if the worker was
     * given a grant to report on, it is heard and judged here.
     */
    synchronized Heard judgeHere(Feedback feedback, Observation seen, String worker, long now, GovernorPolicy policy,
            RandomGenerator random) {
        if (!workers.spend(worker, now)) {
            ignored++;
            return Heard.IGNORED;
        }
        heard(feedback, now);
        return judge(seen, worker, now, policy, random) ? Heard.GAVE_UP : Heard.JUDGED;
    }

    /** A report the shared ledger ignored (no grant to the worker to report on). */
    synchronized void ignoredElsewhere() {
        ignored++;
    }

    /**
     * How the node that heard a response reads it, for judging (here, or in a shared ledger): its kind, its floor,
     * its robots.txt delay, and the latency detector's verdict (the detector stays with the node: it needs every
     * sample). Nothing else changes until the response is known credible ({@link #heard}).
     */
    synchronized Observation observe(Feedback feedback, long now, GovernorPolicy policy) {
        Long crawlDelay = feedback.crawlDelaySeconds() == null ? null
                : Math.round(feedback.crawlDelaySeconds() * SECOND);
        int status = feedback.status();
        boolean error = feedback.isError();
        boolean slowDown = isSlowDown(status);
        boolean latencySignal = false;
        if (slowDown) {
            latency.signalled();
        } else if (!error) {
            latencySignal = latency.add(feedback.latencyMillis(), policy);
        }
        Long retryAfter = feedback.retryAfterSeconds() != null && feedback.retryAfterSeconds() > 0
                ? Math.min(feedback.retryAfterSeconds(), MAX_RETRY_AFTER_SECONDS) : null;
        return new Observation(status, error, slowDown, retryAfter, latencySignal, crawlDelay);
    }

    /**
     * The part of a credible response that stays with the node that heard it: the counters, the last statuses, the
     * robots.txt delay, whether the domain served this crawler.
     */
    synchronized void heard(Feedback feedback, long now) {
        lastSeen = now;
        responses++;
        statuses.add(feedback.status());
        if (feedback.crawlDelaySeconds() != null) {
            pace.setCrawlDelay(Math.round(feedback.crawlDelaySeconds() * SECOND));
        }
        int status = feedback.status();
        if (isSlowDown(status)) {
            slowDowns++;
        }
        if (status >= 200 && status < 400) {
            servedBefore = true;
        }
    }

    /**
     * What a response means for the domain's pace: the breaker, the {@code Retry-After} floor or the backoff,
     * the rate's cut or rise, give-up. Returns true when this response gave the domain up.
     */
    synchronized boolean judge(Observation seen, String worker, long now, GovernorPolicy policy,
            RandomGenerator random) {
        boolean error = seen.error();
        boolean slowDown = seen.slowDown();
        // A slow-down the rate cut answers is AIMD at work, not an incident: no backoff, and no error for the
        // breaker. A small site crawled near its capacity gives one now and then (docs/manual/governor.md,
        // "AIMD, backoff, breaker and give-up").
        boolean incident = slowDown && !learner.absorbedByCut(now, pace, block.lastBackoffEnd());
        if (breaker.record(now, error || incident, policy)) {
            breakerClosed = false;
        } else if (breaker.state() == BreakerState.CLOSED) {
            breakerClosed = true;
        }
        if (seen.retryAfterSeconds() != null) {
            block.retryAfter(now, seen.retryAfterSeconds());
        } else if (incident) {
            block.backOff(now, policy, random);
        }
        if (slowDown) {
            latency.signalled();
            learner.slowedDown(now, policy, pace, delivered());
        } else if (!error) {
            consecutiveErrors = 0;
            workers.healthy();
            block.healthy(now);
            if (seen.latencySignal()) {
                latency.signalled();
                learner.queueBuilding(now, policy, pace, delivered());
            } else {
                learner.healthy(now, policy, pace, busy(now));
            }
        }
        if (!error) {
            return false;
        }
        consecutiveErrors++;
        // Credible only when every worker active on the domain has seen its share of the errors (DomainWorkers).
        boolean corroborated = workers.erred(worker, now, policy.giveUpAfterErrors());
        if (consecutiveErrors >= policy.giveUpAfterErrors() && corroborated && !givenUp) {
            givenUp = true;
            return true;
        }
        return false;
    }

    /**
     * What a site says when it means "slower": 429, 503, and a 403 from a domain that has served this
     * crawler before (a site that never served it is refusing it, not pacing it).
     */
    private boolean isSlowDown(int status) {
        return status == 429 || status == 503 || status == 403 && servedBefore;
    }

    /** What actually went through lately, requests per second: the rate until grants have a measured gap. */
    private double delivered() {
        return lastGrant == Long.MIN_VALUE || grantGap <= 0 ? pace.rate() : SECOND / grantGap;
    }

    /** Workers want the domain, and the pacer, not the workers, is what holds them back. */
    private boolean busy(long now) {
        long demand = lastDemand;
        long interval = pace.intervalMicros();
        if (demand == Long.MIN_VALUE || now - demand > Math.max(BUSY_WINDOW, 2 * interval)) {
            return false;
        }
        double gap = lastGrant == Long.MIN_VALUE ? 0
                : blockedSince(lastGrant) ? grantGap : Math.max(grantGap, now - lastGrant);
        return gap <= APP_LIMITED_GAPS * interval;
    }

    private boolean blockedSince(long time) {
        return block.until() > time || breaker.state() != BreakerState.CLOSED && breaker.openUntil() > time;
    }

    /**
     * Takes the cluster's answer for this domain as this node's state: the rate, the interval (with every
     * node's delays), the floor, the breaker, the backoff and error counts. Times arrive as durations from
     * now (the cluster's clock is not this node's). This is also what the node paces on if the cluster
     * becomes unreachable. The given-up mark is the governor's to mirror (it is saved).
     */
    synchronized void mirror(LedgerAnswer answer, long now) {
        pace.mirror(answer.rate(), answer.intervalMicros());
        block.mirror(now, answer.blockedForMicros(), answer.blockReason(), answer.backoffLevel());
        breaker.mirror(answer.breaker(), now + Math.max(0, answer.breakerOpenForMicros()));
        breakerClosed = answer.breaker() == BreakerState.CLOSED;
        consecutiveErrors = answer.consecutiveErrors();
        learner.mirrorSlowStart(answer.slowStart());
        if (answer.calls60s() >= 0) {
            clusterCalls = answer.calls60s();
            clusterErrors = answer.errors60s();
        }
    }

    /** The cluster's answer to a permit for {@code worker}, counted here as the local pacer's would be. */
    Permit mirrorPermit(LedgerAnswer answer, long now, String worker) {
        lastSeen = now;
        mirror(answer, now);
        if (answer.givenUp()) {
            return Permit.givenUp(domain);
        }
        if (!answer.granted()) {
            if (answer.reason() == PermitReason.PACING) {
                pace.mirrorSlot(now + answer.waitMicros());
            }
            return deny(now, worker, Permit.waitFor(domain, answer.waitMicros(), answer.reason()));
        }
        pace.mirrorSlot(now + answer.intervalMicros());
        lastDemand = now;
        countGrant(now, worker);
        return Permit.grant(domain);
    }

    /** The longest of the delays this node knows (the operator's minimum delay, robots.txt), micros. */
    long floorMicros() {
        return pace.floorMicros();
    }

    synchronized void mirrorGivenUp(boolean value) {
        givenUp = value;
        if (!value) {
            consecutiveErrors = 0;
            workers.clear();
        }
    }

    /** Keeps the learned rate inside the policy's bounds after a live edit. */
    synchronized void clamp(GovernorPolicy policy) {
        double rate = pace.rate();
        double clamped = policy.clampRate(rate);
        if (clamped != rate) {
            pace.setRate(clamped);
        }
    }

    /** An operator's rate: the operator knows something; adaptation goes on additively from there. */
    synchronized void setOperatorRate(double newRate) {
        learner.operatorSet(newRate);
        pace.setRate(newRate);
    }

    synchronized void setOperatorMinDelay(long micros) {
        pace.setMinDelay(micros);
    }

    /** Forgets everything learned; keeps the operator's minimum delay and the given-up mark. */
    synchronized void reset(double initialRate) {
        clusterCalls = -1;
        clusterErrors = -1;
        block.clear();
        learner.reset();
        latency.reset();
        servedBefore = false;
        breaker.close();
        breakerClosed = true;
        statuses.clear();
        consecutiveErrors = 0;
        workers.clear();
        lastGrant = Long.MIN_VALUE;
        grantGap = 0;
        pace.reset(initialRate);
    }

    /** An operator brings a given-up domain back, with a closed breaker and a clean error count. */
    synchronized void revive() {
        givenUp = false;
        consecutiveErrors = 0;
        workers.clear();
        breaker.close();
        breakerClosed = true;
    }

    boolean givenUp() {
        return givenUp;
    }

    /** Whether the domain holds something that must not be forgotten yet (a block). */
    long blockedUntil() {
        return block.until();
    }

    long lastSeen() {
        return lastSeen;
    }

    /** Reports ignored: their worker had no grant for this domain to report on. */
    synchronized long ignoredReports() {
        return ignored;
    }

    synchronized DomainView view(long now, LongFunction<Instant> toInstant) {
        long blocked = block.until();
        long interval = pace.intervalMicros();
        return new DomainView(domain, pace.rate(), SECOND / (double) interval, pace.minDelayMicros() / 1_000,
                pace.crawlDelayMicros() / 1_000, breaker.state() == BreakerState.OPEN && now >= breaker.openUntil()
                        ? BreakerState.HALF_OPEN : breaker.state(),
                clusterCalls >= 0 ? clusterCalls : breaker.calls(now),
                clusterErrors >= 0 ? clusterErrors : breaker.errors(now),
                blocked > now ? toInstant.apply(blocked) : null, blocked > now ? block.reason() : null,
                block.backoffLevel(), consecutiveErrors, givenUp, statuses.oldestFirst(),
                granted, denied, responses, slowDowns, toInstant.apply(lastSeen), learner.slowStart(),
                latency.baseline());
    }
}
