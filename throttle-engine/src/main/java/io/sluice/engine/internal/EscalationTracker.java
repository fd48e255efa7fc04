package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.store.ClientKey;
import java.time.Duration;

/**
 * Counts refusals per client or address for the policy's escalation rules, like fail2ban's jails: a key refused
 * {@code refusals} times within {@code withinSeconds} has committed an offence, and its offences are remembered
 * (for a day after the last) so that each ban is longer than the one before.
 *
 * <p>Only refusals reach it, never an admitted request, so its cost is off the admitted path. Bounded: at most
 * {@link #MAX_KEYS} keys (Caffeine's size bound evicts the least useful), each with a ring of at most
 * {@code refusals} times (the validator caps it). Times come from the caller.
 */
public final class EscalationTracker {

    /** The most keys whose refusals and offences are remembered. */
    static final int MAX_KEYS = 100_000;
    /** How long a key's offences count towards the next ban's length after its last refusal. */
    static final Duration MEMORY = Duration.ofDays(1);

    /** A key of one rule: rules are told apart by their conditions, so an edit that keeps a rule keeps its counts. */
    private record RuleKey(Escalation rule, ClientKey key) {
    }

    private final Cache<RuleKey, Offender> offenders;
    private volatile long tickMillis;

    public EscalationTracker() {
        this.offenders = Caffeine.newBuilder()
                .maximumSize(MAX_KEYS)
                .expireAfterAccess(MEMORY)
                .ticker(() -> tickMillis * 1_000_000L)
                .executor(Runnable::run)
                .build();
    }

    /**
     * Records one refusal of {@code key} under {@code rule} at {@code nowMillis}; returns the ban's length in
     * seconds when this refusal completes an offence, else 0. A key already banned by this rule until a later
     * time commits no new offence.
     */
    public long refused(Escalation rule, ClientKey key, long nowMillis) {
        if (nowMillis > tickMillis) {
            tickMillis = nowMillis;
        }
        Offender offender = offenders.get(new RuleKey(rule, key), k -> new Offender(rule.refusals()));
        return offender.refused(rule, nowMillis);
    }

    /** One key's recent refusals (a ring of times) and its offences. */
    private static final class Offender {
        private final long[] times;
        private int next;
        private int count;
        private int offences;
        private long bannedUntil = Long.MIN_VALUE;

        Offender(int refusals) {
            this.times = new long[refusals];
        }

        synchronized long refused(Escalation rule, long nowMillis) {
            if (nowMillis < bannedUntil) {
                return 0;
            }
            times[next] = nowMillis;
            next = (next + 1) % times.length;
            count = Math.min(count + 1, times.length);
            long oldest = times[next % times.length];
            if (count < times.length || nowMillis - oldest >= rule.withinSeconds() * 1000L) {
                return 0;
            }
            offences++;
            count = 0;
            long seconds = rule.banSecondsFor(offences);
            bannedUntil = nowMillis + seconds * 1000L;
            return seconds;
        }
    }
}
