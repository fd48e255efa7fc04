package io.sluice.engine.classify;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.engine.net.IpAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Checks that a client claiming to be a crawler really is, by forward-confirmed reverse DNS, the method the
 * operators that publish host names document (Google, Bing, Apple, Yandex, Baidu...): the address's PTR name
 * must lie in one of the domains the operator publishes ({@link CrawlerRanges}), and that name must resolve back
 * to the same address. {@link CrawlerVerifier} asks it only when the address is not in the published ranges.
 *
 * <p>It never blocks the request path, and its work is bounded: at most {@code maxEntries} answers are kept, each
 * lookup runs on the given (bounded) executor and counts as failed after {@code lookupTimeout}; a lookup the
 * executor refuses counts as failed at once.
 *
 * <p>It never blocks the request path. {@link #status} answers from a cache; on a miss it starts one
 * lookup on the given executor and answers {@link Status#PENDING}, which the engine treats like
 * {@link Status#FAILED} (the claimant is a {@code BOT} until proven). Answers are kept for
 * {@code verifiedTtl} (success) or {@code failedTtl} (failure, including resolver errors), measured on
 * the injected clock; concurrent misses for the same address share one lookup.
 *
 * <p>The resolver is injectable so tests never touch DNS; {@link #systemResolver()} uses the JDK's.
 */
public final class SearchEngineVerifier {

    /** What is known about a claimant. */
    public enum Status {
        /** PTR in the engine's domains and confirmed by the forward lookup. */
        VERIFIED,
        /** The check failed (or could not be made). */
        FAILED,
        /** A lookup is under way; treat as not verified. */
        PENDING
    }

    /** Blocking DNS, called on the verifier's executor only. */
    public interface Resolver {
        /** PTR names of {@code address}, or an empty list. */
        List<String> reverse(IpAddress address) throws Exception;

        /** Addresses of {@code hostName}, or an empty list. */
        List<IpAddress> forward(String hostName) throws Exception;
    }

    /** How long one check may take by default before it counts as failed. */
    public static final Duration DEFAULT_LOOKUP_TIMEOUT = Duration.ofSeconds(5);

    /** One claim: the crawler's list name, the domains its operator publishes, the claimant's address. */
    private record Key(String crawler, List<String> domains, IpAddress address) {
    }

    private final Resolver resolver;
    private final AsyncLoadingCache<Key, Status> cache;

    /**
     * @param resolver    DNS, blocking
     * @param executor    where lookups run (never the request thread)
     * @param clock       for expiry
     * @param verifiedTtl how long a success is believed
     * @param failedTtl   how long a failure is remembered before retrying
     * @param maxEntries  bound on remembered (crawler, address) pairs
     */
    public SearchEngineVerifier(Resolver resolver, Executor executor, InstantSource clock, Duration verifiedTtl,
            Duration failedTtl, long maxEntries) {
        this(resolver, executor, clock, verifiedTtl, failedTtl, maxEntries, DEFAULT_LOOKUP_TIMEOUT);
    }

    /**
     * @param lookupTimeout a check that has not answered by then (DNS hung, or the executor refused the task) is
     *                      {@link Status#FAILED}, remembered for {@code failedTtl} like any failure; measured on the
     *                      JDK's delayed executor (wall time), since a DNS wait is real time
     */
    public SearchEngineVerifier(Resolver resolver, Executor executor, InstantSource clock, Duration verifiedTtl,
            Duration failedTtl, long maxEntries, Duration lookupTimeout) {
        if (resolver == null || executor == null || clock == null || verifiedTtl == null || failedTtl == null
                || lookupTimeout == null || lookupTimeout.isNegative() || lookupTimeout.isZero()
                || verifiedTtl.isNegative() || failedTtl.isNegative() || maxEntries < 1) {
            throw new IllegalArgumentException("resolver, executor, clock, non-negative TTLs and maxEntries >= 1 "
                    + "are required");
        }
        this.resolver = resolver;
        long timeoutMillis = lookupTimeout.toMillis();
        long verifiedNanos = verifiedTtl.toNanos();
        long failedNanos = failedTtl.toNanos();
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .executor(executor)
                .ticker(() -> {
                    Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                })
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
                .buildAsync((key, lookups) -> {
                    CompletableFuture<Status> answer = new CompletableFuture<>();
                    try {
                        lookups.execute(() -> answer.complete(check(key)));
                    } catch (RejectedExecutionException full) {
                        answer.complete(Status.FAILED); // too many lookups queued: not verified, for now
                    }
                    return answer.completeOnTimeout(Status.FAILED, timeoutMillis, TimeUnit.MILLISECONDS);
                });
    }

    /**
     * The cached answer for a client claiming to be the crawler named {@code crawlerName}, whose operator publishes
     * {@code domains} ({@link CrawlerRanges.Published#reverseDns()}), or {@link Status#PENDING} while a lookup runs
     * (one is started if none is). No domains, or no address, is {@link Status#FAILED}. Never blocks.
     */
    public Status status(String crawlerName, List<String> domains, IpAddress address) {
        if (crawlerName == null || domains == null || domains.isEmpty() || address == null) {
            return Status.FAILED;
        }
        CompletableFuture<Status> answer = cache.get(new Key(crawlerName, domains, address));
        if (!answer.isDone()) {
            return Status.PENDING;
        }
        return answer.getNow(Status.FAILED);
    }

    private Status check(Key key) {
        try {
            for (String name : resolver.reverse(key.address())) {
                String host = normalise(name);
                if (!inDomains(host, key.domains())) {
                    continue;
                }
                if (resolver.forward(host).contains(key.address())) {
                    return Status.VERIFIED;
                }
            }
            return Status.FAILED;
        } catch (Exception e) { // any resolver failure is "not verified", remembered for failedTtl
            return Status.FAILED;
        }
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

    /** The JDK's resolver (system DNS). For production; tests inject their own. */
    public static Resolver systemResolver() {
        return new Resolver() {
            @Override
            public List<String> reverse(IpAddress address) throws UnknownHostException {
                String name = InetAddress.getByAddress(address.toBytes()).getHostName();
                // the JDK returns the literal itself when there is no PTR record
                return IpAddress.tryParse(name) != null ? List.of() : List.of(name);
            }

            @Override
            public List<IpAddress> forward(String hostName) throws UnknownHostException {
                List<IpAddress> out = new ArrayList<>();
                for (InetAddress a : InetAddress.getAllByName(hostName)) {
                    out.add(IpAddress.ofBytes(a.getAddress()));
                }
                return out;
            }
        };
    }
}
