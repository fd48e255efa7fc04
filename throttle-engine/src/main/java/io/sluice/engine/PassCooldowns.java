package io.sluice.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.store.ClientKey;
import java.time.Duration;

/**
 * How often a network may earn a new pass once one of its passes was dropped. A pass is an identity held to one
 * person's pace, but a proof-of-work costs a scraper with native code a few milliseconds: without this, a pass
 * dropped for being used by fifty addresses is replaced at once, and the per-pass stack holds nothing (measured: a
 * fleet sharing one pass per /24 took 98% of the site; docs/BENCHMARKS.md, "Browser check").
 *
 * <p>A network none of whose passes was ever dropped earns passes freely: people arriving are never made to wait.
 * After a drop, the network earns at most one pass per cooldown (the policy's {@code passCooldownSeconds}),
 * doubled by each further drop up to {@link #MAX_DOUBLINGS} times, and forgets its drops after {@link #FORGET} without
 * one. A person behind that network still gets through, after the wait; the page says how long.
 *
 * <p>Per node (a cluster's nodes each keep their own; docs/manual/cluster.md). Bounded like the network budgets: the
 * least used networks are dropped first, which only ever forgets a penalty.
 */
final class PassCooldowns {

    /** The cooldown doubles at most this many times: 16 times the policy's at the most. */
    static final int MAX_DOUBLINGS = 4;
    /** A network's drops are forgotten after this long without one. */
    static final Duration FORGET = Duration.ofHours(1);

    private final Cache<ClientKey, Standing> networks;
    /** The latest time passed in, the table's ticker (see LocalClientStateStore's). */
    private volatile long tickMillis;

    PassCooldowns(long capacity, long nowMillis) {
        this.tickMillis = nowMillis;
        this.networks = Caffeine.newBuilder()
                .maximumSize(capacity)
                .expireAfterAccess(FORGET)
                .ticker(() -> tickMillis * 1_000_000L)
                .executor(Runnable::run)
                .build();
    }

    /** One of {@code network}'s passes was dropped at {@code now}. */
    void dropped(ClientKey network, long now) {
        tick(now);
        networks.get(network, key -> new Standing()).dropped(now);
    }

    /**
     * Whether {@code network} may earn a pass at {@code now}: 0 when it may (and the pass is counted as its latest),
     * otherwise how many milliseconds it waits before it may.
     *
     * @param cooldownSeconds the policy's cooldown; 0 turns the wait off
     */
    long earn(ClientKey network, int cooldownSeconds, long now) {
        tick(now);
        Standing standing = networks.getIfPresent(network);
        if (standing == null) {
            return 0; // never dropped (or forgotten): nothing to remember until it is
        }
        return standing.earn(cooldownSeconds * 1000L, now);
    }

    private void tick(long now) {
        if (now > tickMillis) {
            tickMillis = now;
        }
    }

    /** One network's drops and its latest pass. */
    private static final class Standing {
        private int drops;
        private long lastDrop = Long.MIN_VALUE;
        private long lastEarned = Long.MIN_VALUE;

        synchronized void dropped(long now) {
            forgetIfQuiet(now);
            if (drops == 0 && lastEarned == Long.MIN_VALUE) {
                lastEarned = now; // the dropped pass was earned before this table knew the network: count from now
            }
            drops++;
            lastDrop = Math.max(lastDrop, now);
        }

        synchronized long earn(long cooldownMillis, long now) {
            forgetIfQuiet(now);
            if (drops > 0 && cooldownMillis > 0) {
                long wait = cooldownMillis << Math.min(MAX_DOUBLINGS, drops - 1);
                long ready = lastEarned + wait;
                if (now < ready) {
                    return ready - now;
                }
            }
            lastEarned = now;
            return 0;
        }

        private void forgetIfQuiet(long now) {
            if (drops > 0 && now - lastDrop >= FORGET.toMillis()) {
                drops = 0;
            }
        }
    }
}
