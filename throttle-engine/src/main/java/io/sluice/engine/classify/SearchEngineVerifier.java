package io.sluice.engine.classify;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.sluice.engine.net.IpAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Checks that a client claiming to be a crawler really is, by forward-confirmed reverse DNS, the method the
 * operators that publish host names document (Google, Bing, Apple, Yandex, Baidu...): the address's PTR name
 * must lie in one of the domains the operator publishes ({@link CrawlerRanges}), and that name must resolve back
 * to the same address. {@link CrawlerVerifier} asks it only when the address is not in the published ranges.
 *
 * <p>It never blocks the request path. {@link #status} answers from what is known; on a miss it starts one lookup on
 * the given executor and answers {@link Status#PENDING}, which the engine treats as an unverified claim (the
 * claimant is a {@code BOT} until proven).
 *
 * <p><b>Why it cannot be poisoned</b> (issue 48). Only a real answer is remembered: a PTR name outside the domains,
 * no PTR name, or a forward lookup that does not give the address back is {@link Status#FAILED} for
 * {@code failedTtl}; a confirmed one is {@link Status#VERIFIED} for {@code verifiedTtl}. Everything else is "not
 * yet known" ({@link Status#PENDING}, asked again soon): a resolver that throws (timed out, refused, SERVFAIL), a
 * lookup the executor has no room for, a lookup that waited in the queue longer than {@code lookupTimeout} (it is
 * dropped when it comes up: its claimant will ask again). A claim that got no answer is asked again after a short
 * backoff ({@link #FIRST_RETRY}, doubling up to {@link #LAST_RETRY}), so a resolver down for a few minutes costs a
 * real crawler a few minutes, never the hour a cached failure did; and the queue cannot be filled from one place:
 * each network (IPv4 /24, IPv6 /64) and each claimed crawler name has a quota of lookups queued or running
 * ({@link Bounds}). A claim beyond its quota starts no lookup and is not yet known. So a burst of fake
 * {@code YandexBot} claims from one /64 holds two of the pool's slots, whatever its size, and the real crawler's
 * lookup runs as soon as DNS answers.
 *
 * <p>Thread-safe. Memory is bounded: {@code maxEntries} answers and as many retry times; the lookups in flight are
 * bounded by the executor (a refused one is forgotten at once). The resolver is injectable so tests never touch DNS;
 * {@link #systemResolver()} asks the system's DNS servers.
 */
public final class SearchEngineVerifier {

    /** What is known about a claimant. */
    public enum Status {
        /** PTR in the engine's domains and confirmed by the forward lookup. */
        VERIFIED,
        /** DNS answered, and the answer does not confirm the claim (or there is nothing to check it against). */
        FAILED,
        /** Not known yet: a lookup is under way, DNS did not answer, or it is not this claim's turn. */
        PENDING
    }

    /**
     * Blocking DNS, called on the verifier's executor only. An empty list is an answer ("no such name", "no
     * record"); a resolver that got no answer (timed out, refused, server failure) must throw, so that it is not
     * taken for one.
     */
    public interface Resolver {
        /** PTR names of {@code address}, or an empty list when it has none. */
        List<String> reverse(IpAddress address) throws Exception;

        /** Addresses of {@code hostName}, or an empty list when it has none. */
        List<IpAddress> forward(String hostName) throws Exception;
    }

    /**
     * How many lookups may be queued or running at once for one network (an IPv4 /24 or an IPv6 /64) and for one
     * claimed crawler name. Keep {@code perNetwork} below the executor's thread count, so that one network whose
     * own DNS never answers cannot hold every thread.
     */
    public record Bounds(int perNetwork, int perCrawler) {
        public Bounds {
            if (perNetwork < 1 || perCrawler < 1) {
                throw new IllegalArgumentException("lookup quotas must be at least 1, not " + perNetwork + " per "
                        + "network and " + perCrawler + " per crawler");
            }
        }
    }

    /**
     * What the verifier has done since it was made (counts never go down), and its lookups in flight now.
     *
     * @param lookups    lookups started
     * @param verified   answers that confirmed a claim
     * @param failed     answers that did not
     * @param unanswered lookups that ended without an answer (resolver error, dropped after waiting too long)
     * @param deferred   claims not looked up because their network or crawler had its quota in flight
     * @param refused    lookups the executor had no room for
     * @param inFlight   lookups queued or running now
     */
    public record Stats(long lookups, long verified, long failed, long unanswered, long deferred, long refused,
                        int inFlight) {
    }

    /** How long one check may wait in the queue by default before it is dropped unasked. */
    public static final Duration DEFAULT_LOOKUP_TIMEOUT = Duration.ofSeconds(5);
    /** The default quotas: 2 lookups per network, 100 per claimed crawler. */
    public static final Bounds DEFAULT_BOUNDS = new Bounds(2, 100);
    /** A claim that got no answer is asked again after this, then twice as long each time... */
    public static final Duration FIRST_RETRY = Duration.ofSeconds(10);
    /** ...up to this. */
    public static final Duration LAST_RETRY = Duration.ofMinutes(2);

    /** One claim: the crawler's list name, the domains its operator publishes, the claimant's address. */
    private record Key(String crawler, List<String> domains, IpAddress address) {
    }

    /** No answer yet: not asked again before {@code atNanos}; {@code attempts} lookups went unanswered so far. */
    private record Retry(long atNanos, int attempts) {
    }

    private final Resolver resolver;
    private final Executor executor;
    private final Ticker ticker;
    private final long timeoutNanos;
    private final Cache<Key, Status> answers;
    private final Cache<Key, Retry> retries;
    /** The claims with a lookup queued or running, and when it was queued; an entry lives only that long. */
    private final ConcurrentHashMap<Key, Long> inFlight = new ConcurrentHashMap<>();
    private final Quota<IpAddress> perNetwork;
    private final Quota<String> perCrawler;
    private final LongAdder lookups = new LongAdder();
    private final LongAdder verified = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder unanswered = new LongAdder();
    private final LongAdder deferred = new LongAdder();
    private final LongAdder refused = new LongAdder();

    /**
     * @param resolver    DNS, blocking
     * @param executor    where lookups run (never the request thread)
     * @param clock       for expiry, retries and the queue timeout
     * @param verifiedTtl how long a success is believed
     * @param failedTtl   how long a failure (a real answer) is remembered before asking again
     * @param maxEntries  bound on remembered (crawler, address) pairs
     */
    public SearchEngineVerifier(Resolver resolver, Executor executor, InstantSource clock, Duration verifiedTtl,
            Duration failedTtl, long maxEntries) {
        this(resolver, executor, clock, verifiedTtl, failedTtl, maxEntries, DEFAULT_LOOKUP_TIMEOUT);
    }

    /**
     * @param lookupTimeout a lookup still queued this long after it was asked for (on {@code clock}) is dropped
     *                      when it comes up, unanswered: asked again at the claimant's next request after the
     *                      backoff
     */
    public SearchEngineVerifier(Resolver resolver, Executor executor, InstantSource clock, Duration verifiedTtl,
            Duration failedTtl, long maxEntries, Duration lookupTimeout) {
        this(resolver, executor, clock, verifiedTtl, failedTtl, maxEntries, lookupTimeout, DEFAULT_BOUNDS);
    }

    /** @param bounds the per-network and per-crawler quotas of lookups in flight */
    public SearchEngineVerifier(Resolver resolver, Executor executor, InstantSource clock, Duration verifiedTtl,
            Duration failedTtl, long maxEntries, Duration lookupTimeout, Bounds bounds) {
        if (resolver == null || executor == null || clock == null || verifiedTtl == null || failedTtl == null
                || lookupTimeout == null || lookupTimeout.isNegative() || lookupTimeout.isZero() || bounds == null
                || verifiedTtl.isNegative() || failedTtl.isNegative() || maxEntries < 1) {
            throw new IllegalArgumentException("resolver, executor, clock, non-negative TTLs, a positive timeout, "
                    + "bounds and maxEntries >= 1 are required");
        }
        this.resolver = resolver;
        this.executor = executor;
        this.ticker = () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        };
        this.timeoutNanos = lookupTimeout.toNanos();
        this.perNetwork = new Quota<>(bounds.perNetwork());
        this.perCrawler = new Quota<>(bounds.perCrawler());
        long verifiedNanos = verifiedTtl.toNanos();
        long failedNanos = failedTtl.toNanos();
        this.answers = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .executor(Runnable::run)
                .ticker(ticker)
                .expireAfter(new Expiry<Key, Status>() {
                    @Override
                    public long expireAfterCreate(Key key, Status value, long currentTime) {
                        return value == Status.VERIFIED ? verifiedNanos : failedNanos;
                    }

                    @Override
                    public long expireAfterUpdate(Key key, Status value, long currentTime, long currentDuration) {
                        return expireAfterCreate(key, value, currentTime);
                    }

                    @Override
                    public long expireAfterRead(Key key, Status value, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .build();
        this.retries = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .executor(Runnable::run)
                .ticker(ticker)
                // long enough to keep the backoff's count between two tries
                .expireAfterWrite(LAST_RETRY.multipliedBy(4).toNanos(), TimeUnit.NANOSECONDS)
                .build();
    }

    /**
     * What is known of a client claiming to be the crawler named {@code crawlerName}, whose operator publishes
     * {@code domains} ({@link CrawlerRanges.Published#reverseDns()}): the remembered answer, or
     * {@link Status#PENDING} (a lookup is started when none runs, the backoff allows and the quotas have room). No
     * domains, or no address, is {@link Status#FAILED}. Never blocks.
     */
    public Status status(String crawlerName, List<String> domains, IpAddress address) {
        if (crawlerName == null || domains == null || domains.isEmpty() || address == null) {
            return Status.FAILED;
        }
        Key key = new Key(crawlerName, domains, address);
        Status known = answers.getIfPresent(key);
        if (known != null) {
            return known;
        }
        if (inFlight.containsKey(key)) {
            return Status.PENDING;
        }
        long now = ticker.read();
        Retry retry = retries.getIfPresent(key);
        if (retry != null && now - retry.atNanos() < 0) {
            return Status.PENDING;
        }
        startLookup(key, now, retry == null ? 0 : retry.attempts());
        // an executor that runs the task at once (tests) has answered already
        known = answers.getIfPresent(key);
        return known != null ? known : Status.PENDING;
    }

    /** Counts so far, and the lookups in flight now. */
    public Stats stats() {
        return new Stats(lookups.sum(), verified.sum(), failed.sum(), unanswered.sum(), deferred.sum(),
                refused.sum(), inFlight.size());
    }

    private void startLookup(Key key, long now, int attempts) {
        IpAddress network = networkOf(key.address());
        if (!perNetwork.tryAcquire(network)) {
            deferred.increment();
            return;
        }
        if (!perCrawler.tryAcquire(key.crawler())) {
            perNetwork.release(network);
            deferred.increment();
            return;
        }
        // another request started it meanwhile, or one just ended with its answer
        if (inFlight.putIfAbsent(key, now) != null) {
            perCrawler.release(key.crawler());
            perNetwork.release(network);
            return;
        }
        if (answers.getIfPresent(key) != null) {
            inFlight.remove(key);
            perCrawler.release(key.crawler());
            perNetwork.release(network);
            return;
        }
        lookups.increment();
        try {
            executor.execute(() -> lookUp(key, network, now, attempts));
        } catch (RejectedExecutionException full) {
            refused.increment();
            finish(key, network, null, attempts);
        }
    }

    private void lookUp(Key key, IpAddress network, long queuedAt, int attempts) {
        Status answer = null;
        try {
            // still wanted: one that waited too long is dropped, so a backlog drains fast once DNS answers again
            if (ticker.read() - queuedAt <= timeoutNanos) {
                answer = check(key);
            }
        } finally {
            finish(key, network, answer, attempts);
        }
    }

    /** Records an answer (or its absence: null) before the claim leaves the in-flight set, then frees its quotas. */
    private void finish(Key key, IpAddress network, Status answer, int attempts) {
        try {
            if (answer == null) {
                unanswered.increment();
                retries.put(key, new Retry(ticker.read() + backoffNanos(attempts), attempts + 1));
            } else {
                (answer == Status.VERIFIED ? verified : failed).increment();
                answers.put(key, answer);
                retries.invalidate(key);
            }
        } finally {
            inFlight.remove(key);
            perCrawler.release(key.crawler());
            perNetwork.release(network);
        }
    }

    static long backoffNanos(int attempts) {
        long first = FIRST_RETRY.toNanos();
        long last = LAST_RETRY.toNanos();
        return attempts >= 20 ? last : Math.min(last, first << attempts);
    }

    /** The network a claim counts against: its IPv4 /24 or IPv6 /64. */
    static IpAddress networkOf(IpAddress address) {
        return address.isIpv4() ? IpAddress.ofIpv4((int) (address.low() & 0xFFFF_FF00L))
                : IpAddress.ofIpv6(address.high(), 0);
    }

    /** The answer, or null when DNS gave none (a resolver error and no name confirmed). */
    private Status check(Key key) {
        List<String> names;
        try {
            names = resolver.reverse(key.address());
        } catch (Exception noAnswer) {
            return null;
        }
        boolean unanswered = false;
        for (String name : names) {
            String host = normalise(name);
            if (!inDomains(host, key.domains())) {
                continue;
            }
            try {
                if (resolver.forward(host).contains(key.address())) {
                    return Status.VERIFIED;
                }
            } catch (Exception noAnswer) {
                unanswered = true;
            }
        }
        return unanswered ? null : Status.FAILED;
    }

    private static String normalise(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }

    /** {@code host} is one of the domains or a name under one (at a dot boundary). */
    static boolean inDomains(String host, List<String> domains) {
        for (String domain : domains) {
            if (host.length() > domain.length() && host.endsWith(domain)
                    && host.charAt(host.length() - domain.length() - 1) == '.') {
                return true;
            }
        }
        return false;
    }

    /**
     * The system's DNS servers, asked directly ({@link SystemDns}), so that a query that timed out or failed is
     * told apart from "no such name". For production; tests inject their own.
     */
    public static Resolver systemResolver() {
        return new SystemDns();
    }

    /** Counts held per key, each at most {@code limit}; a key's entry lives while its count is above zero. */
    private static final class Quota<K> {
        private final int limit;
        private final ConcurrentHashMap<K, Integer> held = new ConcurrentHashMap<>();

        Quota(int limit) {
            this.limit = limit;
        }

        boolean tryAcquire(K key) {
            boolean[] got = {false};
            held.compute(key, (k, count) -> {
                int now = count == null ? 0 : count;
                if (now >= limit) {
                    return count;
                }
                got[0] = true;
                return now + 1;
            });
            return got[0];
        }

        void release(K key) {
            held.computeIfPresent(key, (k, count) -> count <= 1 ? null : count - 1);
        }
    }
}
