package io.sluice.server.botauth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Agents' key directories, cached, and fetched in the background: {@link #keys} answers from the cache on the
 * request thread and, when a directory is unknown or stale, starts one fetch and answers with what it has (nothing
 * for a new one: the request is an unverified claim now, and a later one is verified once the keys are here).
 *
 * <p>Bounded everywhere a client could push: at most {@code maxEntries} directories are remembered (Caffeine's
 * size bound, which admits by frequency, so a spray of new URLs does not push out the directories in use); at most
 * {@code perHost} fetches run per host and {@code total} in all (a fetch beyond is not started: not queued, not
 * remembered, asked again by a later request); a directory is believed for its {@code max-age} clamped to
 * [{@code minFresh}, {@code maxFresh}]. A failed fetch is remembered and not retried before a backoff that doubles
 * from 30 s up to 5 min (the draft's ceiling for negative caching); it never evicts keys already held (an agent's
 * outage must not revoke its keys), which are kept for {@code maxStale} past their freshness. A directory that
 * answers without a key replaces what was held: that is how a removed key stops verifying.
 *
 * <p>Time is the injected clock's; the fetches' own timeouts are the fetcher's (wall time, a network wait).
 */
final class KeyDirectories {

    /** What is known of one directory. {@code directory} null: never fetched successfully. */
    private record Entry(KeyDirectory directory, long freshUntil, long keepUntil, long retryAt, int failures) {
    }

    private static final long FIRST_BACKOFF = Duration.ofSeconds(30).toMillis();
    private static final long MAX_BACKOFF = Duration.ofMinutes(5).toMillis();

    private final DirectoryFetcher fetcher;
    private final InstantSource clock;
    private final Cache<String, Entry> entries;
    private final int perHost;
    private final int total;
    private final long minFresh;
    private final long maxFresh;
    private final long maxStale;
    private final boolean allowTestKeys;
    private final Set<String> fetching = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, AtomicInteger> perHostRunning = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicLong fetched = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();

    KeyDirectories(DirectoryFetcher fetcher, InstantSource clock, SignedAgentOptions options) {
        this.fetcher = fetcher;
        this.clock = clock;
        this.entries = Caffeine.newBuilder().maximumSize(options.maxDirectories()).build();
        this.perHost = options.fetchesPerHost();
        this.total = options.fetchesInAll();
        this.minFresh = options.minFresh().toMillis();
        this.maxFresh = options.maxFresh().toMillis();
        this.maxStale = options.maxStale().toMillis();
        this.allowTestKeys = options.allowTestKeys();
    }

    /**
     * The directory of {@code url} as held now, or null when none is; starts a fetch when it is unknown or stale and
     * none is running or backing off. Never blocks.
     */
    KeyDirectory keys(AgentUrl url) {
        long now = clock.millis();
        Entry entry = entries.getIfPresent(url.identifier());
        if (entry == null || (now >= entry.freshUntil() && now >= entry.retryAt())) {
            start(url);
        }
        return entry == null || entry.directory() == null || now >= entry.keepUntil() ? null : entry.directory();
    }

    private void start(AgentUrl url) {
        if (!fetching.add(url.identifier())) {
            return; // one fetch per directory: concurrent misses share it
        }
        AtomicInteger hostRunning = perHostRunning.computeIfAbsent(url.host(), h -> new AtomicInteger());
        if (hostRunning.incrementAndGet() > perHost) {
            release(url, hostRunning, false);
            skipped.incrementAndGet();
            return;
        }
        if (running.incrementAndGet() > total) {
            running.decrementAndGet();
            release(url, hostRunning, false);
            skipped.incrementAndGet();
            return;
        }
        try {
            fetcher.fetch(url.fetch()).whenComplete((result, failure) -> {
                try {
                    record(url, result, failure);
                } finally {
                    release(url, hostRunning, true);
                }
            });
        } catch (RuntimeException e) { // a fetcher that refuses at once (stopped): a failure like any other
            record(url, null, e);
            release(url, hostRunning, true);
        }
    }

    private void release(AgentUrl url, AtomicInteger hostRunning, boolean wasRunning) {
        if (wasRunning) {
            running.decrementAndGet();
        }
        if (hostRunning.decrementAndGet() == 0) {
            perHostRunning.remove(url.host(), hostRunning);
        }
        fetching.remove(url.identifier());
    }

    private void record(AgentUrl url, DirectoryFetcher.Fetched result, Throwable failure) {
        long now = clock.millis();
        KeyDirectory directory = null;
        if (failure == null) {
            try {
                directory = KeyDirectory.parse(result.body(), allowTestKeys);
            } catch (IllegalArgumentException malformed) {
                failure = malformed;
            }
        }
        if (directory != null) {
            long maxAge = result.maxAgeSeconds() == null ? maxFresh : result.maxAgeSeconds() * 1000;
            long fresh = Math.min(maxFresh, Math.max(minFresh, maxAge));
            entries.put(url.identifier(), new Entry(directory, now + fresh, now + fresh + maxStale, now + fresh, 0));
            fetched.incrementAndGet();
            return;
        }
        failed.incrementAndGet();
        entries.asMap().compute(url.identifier(), (key, held) -> {
            int failures = held == null ? 1 : held.failures() + 1;
            long backoff = Math.min(MAX_BACKOFF, FIRST_BACKOFF << Math.min(failures - 1, 10));
            return held == null ? new Entry(null, now, now, now + backoff, failures)
                    : new Entry(held.directory(), held.freshUntil(), held.keepUntil(), now + backoff, failures);
        });
    }

    /** Directories fetched and read, failed (any reason), and fetches not started because of the bounds. */
    long fetched() {
        return fetched.get();
    }

    long failed() {
        return failed.get();
    }

    long skipped() {
        return skipped.get();
    }

    /** Fetches running now. */
    int running() {
        return running.get();
    }
}
