package io.sluice.crawl;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's fetch done politely: from the cache when fresh (no permit spent, no governor place),
 * else through the local governor, a permit from the crawl governor, the request itself, and a
 * report of what the site answered. Thread-safe.
 */
public final class PoliteFetcher implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final PermitClient permits;
    private final SlidingWindowGovernor governor;
    private final ResponseCache cache;
    private final HttpClient http;
    private final InstantSource clock;
    private final String userAgent;
    private final RequestSigner signer;
    private final AtomicLong fetched = new AtomicLong();
    private final AtomicLong fromCache = new AtomicLong();

    public PoliteFetcher(PermitClient permits, SlidingWindowGovernor governor, ResponseCache cache, HttpClient http,
            InstantSource clock, String userAgent) {
        this(permits, governor, cache, http, clock, userAgent, null);
    }

    /**
     * @param signer signs every request as the fleet (Web Bot Auth, {@link RequestSigner}), or null for unsigned
     */
    public PoliteFetcher(PermitClient permits, SlidingWindowGovernor governor, ResponseCache cache, HttpClient http,
            InstantSource clock, String userAgent, RequestSigner signer) {
        this.signer = signer;
        this.permits = permits;
        this.governor = governor;
        this.cache = cache;
        this.http = http;
        this.clock = clock;
        this.userAgent = userAgent;
    }

    /** What a fetch gave, and whether it came from the cache. */
    public record Result(ResponseCache.CachedResponse response, boolean fromCache) {
        public int status() {
            return response.status();
        }
    }

    /**
     * GETs {@code uri} politely; blocks until done.
     *
     * @throws DomainGivenUpException when the crawl governor gave the domain up
     * @throws IOException            when the site could not be reached (reported as status 0)
     */
    public Result fetch(URI uri) throws IOException, InterruptedException {
        var cached = cache.get(uri);
        if (cached.isPresent()) {
            fromCache.incrementAndGet();
            return new Result(cached.get(), true);
        }
        try {
            return governor.submit(() -> fetchNow(uri)).get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }

    private Result fetchNow(URI uri) throws IOException, InterruptedException {
        String domain = domainOf(uri);
        permits.acquire(domain);
        long started = System.nanoTime();
        HttpResponse<byte[]> response;
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                    .header("User-Agent", userAgent).GET();
            if (signer != null) {
                signer.headers("GET", uri).forEach(request::header);
            }
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            permits.report(new Feedback(domain, 0, null, -1, null));
            throw e;
        }
        long latency = (System.nanoTime() - started) / 1_000_000;
        fetched.incrementAndGet();
        Long retryAfter = response.headers().firstValue("Retry-After").map(this::retryAfterSeconds).orElse(null);
        permits.report(new Feedback(domain, response.statusCode(), retryAfter, latency, null));
        ResponseCache.CachedResponse result = new ResponseCache.CachedResponse(response.statusCode(),
                response.headers().map(), response.body());
        cache.put(uri, result);
        return new Result(result, false);
    }

    /** The domain the governor paces: the host, with the port when one is given. */
    static String domainOf(URI uri) {
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("not an absolute http(s) URL: " + uri);
        }
        return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
    }

    /** {@code Retry-After} as seconds from now: a number of seconds or an HTTP date; null if neither. */
    Long retryAfterSeconds(String value) {
        String text = value.trim();
        try {
            return Math.max(0, Long.parseLong(text));
        } catch (NumberFormatException notSeconds) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
                return Math.max(0, Duration.between(clock.instant(), at.toInstant()).toSeconds());
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }

    /** Requests actually sent to sites. */
    public long fetched() {
        return fetched.get();
    }

    /** Requests answered from the cache. */
    public long servedFromCache() {
        return fromCache.get();
    }

    @Override
    public void close() {
        governor.close();
    }
}
