package io.sluice.crawl;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Responses kept per route so that a repeated request is answered without a permit or a fetch. How
 * long a response stays fresh comes from the first TTL rule whose pattern matches the path (a glob:
 * {@code *} within one path segment, {@code **} across segments), else the default TTL; a TTL of
 * zero means never cached. Only 200 responses to GET are cached. Bounded: the least recently used
 * entry goes first. Thread-safe.
 */
public final class ResponseCache {

    /** A response as cached and as returned. */
    public record CachedResponse(int status, Map<String, List<String>> headers, byte[] body) {
        public CachedResponse {
            headers = Map.copyOf(headers);
        }
    }

    /** Responses to paths matching {@code pattern} stay fresh for {@code ttl}. */
    public record TtlRule(String pattern, Duration ttl) {
        public TtlRule {
            if (ttl.isNegative()) {
                throw new IllegalArgumentException("a TTL must not be negative: " + pattern);
            }
        }
    }

    private record Entry(CachedResponse response, Instant expiresAt) {
    }

    private final InstantSource clock;
    private final Duration defaultTtl;
    private final List<TtlRule> rules;
    private final List<Pattern> patterns;
    private final Map<String, Entry> entries;
    private long hits;
    private long misses;

    public ResponseCache(InstantSource clock, Duration defaultTtl, List<TtlRule> rules, int maxEntries) {
        this.clock = clock;
        this.defaultTtl = defaultTtl;
        this.rules = List.copyOf(rules);
        this.patterns = this.rules.stream().map(rule -> glob(rule.pattern())).toList();
        // ResponseCache.Entry by its full name: inside a LinkedHashMap subclass a bare Entry is the map's own type
        // under JDK 25's javac (a name clash on removeEldestEntry)
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ResponseCache.Entry> eldest) {
                return size() > maxEntries;
            }
        };
    }

    /** The TTL the rules give {@code uri}'s path. */
    public Duration ttlFor(URI uri) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        for (int i = 0; i < rules.size(); i++) {
            if (patterns.get(i).matcher(path).matches()) {
                return rules.get(i).ttl();
            }
        }
        return defaultTtl;
    }

    /** A fresh cached response for {@code GET uri}, if there is one. */
    public synchronized Optional<CachedResponse> get(URI uri) {
        String key = key(uri);
        Entry entry = entries.get(key);
        if (entry != null && clock.instant().isBefore(entry.expiresAt())) {
            hits++;
            return Optional.of(entry.response());
        }
        if (entry != null) {
            entries.remove(key);
        }
        misses++;
        return Optional.empty();
    }

    /** Keeps {@code response} to {@code GET uri} for as long as the rules say, if it may be cached. */
    public void put(URI uri, CachedResponse response) {
        if (response.status() == 200) {
            store(uri, response, ttlFor(uri));
        }
    }

    /** Puts a response in by hand (warming the cache from a dump, say), with its own TTL. */
    public void seed(URI uri, CachedResponse response, Duration ttl) {
        store(uri, response, ttl);
    }

    private synchronized void store(URI uri, CachedResponse response, Duration ttl) {
        if (ttl.isZero() || ttl.isNegative()) {
            return;
        }
        entries.put(key(uri), new Entry(response, clock.instant().plus(ttl)));
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long misses() {
        return misses;
    }

    private static String key(URI uri) {
        return "GET " + uri.normalize();
    }

    static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' && i + 1 < pattern.length() && pattern.charAt(i + 1) == '*') {
                regex.append(".*");
                i++;
            } else if (c == '*') {
                regex.append("[^/]*");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
