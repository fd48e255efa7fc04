package io.sluice.engine.governor;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

/**
 * The domains the governor has learned something about, bounded whatever the workers send: at most
 * {@code maxDomains} (Caffeine's size bound: the least recently and least often used go first), each forgotten
 * after {@link #IDLE} unused, unless a block holds it longer. A domain comes back with its saved
 * {@link OperatorSettings}. Also where each call reads the policy, so a live edit first brings every learned
 * rate inside its bounds. Thread-safe.
 */
final class DomainTable {
    /** A domain nobody asked about for this long is forgotten (unless it is blocked longer). */
    static final Duration IDLE = Duration.ofHours(1);

    private final Cache<String, DomainState> domains;
    private final Supplier<GovernorPolicy> policy;
    private final OperatorSettings settings;
    private final GovernorClock clock;
    private volatile GovernorPolicy lastPolicy;

    DomainTable(int maxDomains, Supplier<GovernorPolicy> policy, OperatorSettings settings, GovernorClock clock) {
        this.policy = policy;
        this.settings = settings;
        this.clock = clock;
        this.lastPolicy = policy.get();
        this.domains = Caffeine.newBuilder()
                .maximumSize(maxDomains)
                // Maintenance (eviction) on the calling thread: the bound holds after every call, and the
                // governor starts no threads of its own.
                .executor(Runnable::run)
                .ticker(() -> clock.micros() * 1_000)
                .expireAfter(new IdleUnlessBlocked())
                .build();
    }

    /** The policy for this call; after a live edit, every learned rate is first brought inside its bounds. */
    GovernorPolicy policy() {
        GovernorPolicy current = policy.get();
        if (current != lastPolicy) {
            lastPolicy = current;
            domains.asMap().values().forEach(state -> state.clamp(current));
        }
        return current;
    }

    /** The domain's state, made (at the policy's initial rate, with its saved settings) if it has none. */
    DomainState state(String domain, GovernorPolicy current) {
        return domains.get(domain, name -> {
            DomainSettings saved = settings.of(name);
            return new DomainState(name, current.initialRate(), saved.minDelayMillis() * 1_000, saved.givenUp(),
                    clock.micros());
        });
    }

    /** The domain's state if it has one (asking does not make one). */
    DomainState ifPresent(String domain) {
        return domains.getIfPresent(domain);
    }

    Collection<DomainState> all() {
        return domains.asMap().values();
    }

    long estimatedSize() {
        return domains.estimatedSize();
    }

    /** After a response blocked the domain: it is kept at least {@link #IDLE} past the block's end. */
    void keepWhileBlocked(String domain, DomainState state, long now) {
        long blocked = state.blockedUntil();
        if (blocked > now) {
            domains.policy().expireVariably().ifPresent(expiry -> expiry.setExpiresAfter(domain,
                    Duration.ofNanos((blocked - now) * 1_000).plus(IDLE)));
        }
    }

    /** Forget a domain an hour after its last use, but never while a Retry-After or backoff holds. */
    private static final class IdleUnlessBlocked implements Expiry<String, DomainState> {
        @Override
        public long expireAfterCreate(String key, DomainState value, long currentTime) {
            return IDLE.toNanos();
        }

        @Override
        public long expireAfterUpdate(String key, DomainState value, long currentTime, long currentDuration) {
            return currentDuration;
        }

        @Override
        public long expireAfterRead(String key, DomainState value, long currentTime, long currentDuration) {
            long blockedNanos = (value.blockedUntil() - currentTime / 1_000) * 1_000;
            return Math.max(IDLE.toNanos(), blockedNanos + IDLE.toNanos());
        }
    }
}
