package io.sluice.server.front;

import io.sluice.engine.ThrottleEngine;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.io.ManagedSelector;

/**
 * What the lean forwarding path (docs/architecture.md, "Front end") needs to know, shared by every
 * connection of one listener: the engine, the upstream, the timeouts, and one pool of upstream
 * connections per selector, so that a request and its upstream connection are served by one thread.
 *
 * <p>The lean path takes only the common case: an HTTP/1.1 request with no body or a small
 * {@code Content-Length} one, that the engine admits at once. Everything else is handed, byte for byte,
 * to Jetty's own HTTP connection and from there to {@link ThrottleHandler} and {@link UpstreamProxy}.
 */
public final class LeanForwarding {
    /** A request body up to this size is forwarded on the lean path; a larger one goes to the proxy. */
    public static final int MAX_BODY_BYTES = 4 * 1024;
    /** Idle upstream connections kept per selector; nginx's {@code keepalive} plays this part. */
    static final int MAX_IDLE_PER_SELECTOR = 256;
    /** Bytes read from the upstream at a time. */
    static final int UPSTREAM_BUFFER_BYTES = 16 * 1024;
    static final long CONNECT_TIMEOUT_MILLIS = 5_000;

    private final ThrottleEngine engine;
    private final InstantSource clock;
    private final AccessLog accessLog;
    private final UpstreamAddress upstreamAddress;
    private final String basePath;
    private final long upstreamTimeoutMillis;
    private final long requestIdleMillis;
    private final ForwardedHeaders forwarded = new ForwardedHeaders("sluice");
    private final HttpCompliance upstreamCompliance;
    private final Map<ManagedSelector, UpstreamPool> pools = new ConcurrentHashMap<>();
    private final UpstreamErrors upstreamErrors = new UpstreamErrors();

    /**
     * @param upstream        the site, {@code http://host:port[/base]}
     * @param upstreamTimeout how long the upstream may stay silent before the client gets a 504
     * @param requestIdle     how long a client's connection may stay silent while its request is served
     */
    public LeanForwarding(ThrottleEngine engine, InstantSource clock, AccessLog accessLog, URI upstream,
                          Duration upstreamTimeout, Duration requestIdle) {
        this(engine, clock, accessLog, upstream, upstreamTimeout, requestIdle, InetAddress::getByName,
                UpstreamAddress.DEFAULT_TTL);
    }

    /**
     * @param resolver    looks the upstream's host name up (the system's resolver, or a test's)
     * @param lookupEvery how long an address looked up is used before it is looked up again
     */
    LeanForwarding(ThrottleEngine engine, InstantSource clock, AccessLog accessLog, URI upstream,
                   Duration upstreamTimeout, Duration requestIdle, UpstreamAddress.Resolver resolver,
                   Duration lookupEvery) {
        if (!supports(upstream)) {
            throw new IllegalArgumentException("the lean path forwards to http:// upstreams only: " + upstream);
        }
        this.engine = engine;
        this.clock = clock;
        this.accessLog = accessLog;
        int port = upstream.getPort() < 0 ? 80 : upstream.getPort();
        this.upstreamAddress = new UpstreamAddress(upstream.getHost(), port, lookupEvery, resolver);
        String path = upstream.getRawPath();
        this.basePath = path == null || "/".equals(path) ? "" : path.endsWith("/")
                ? path.substring(0, path.length() - 1) : path;
        this.upstreamTimeoutMillis = upstreamTimeout.toMillis();
        this.requestIdleMillis = requestIdle.toMillis();
        // The same response parsing rules as the proxy's HTTP client (its default), so both paths accept the
        // same upstreams.
        this.upstreamCompliance = HttpCompliance.RFC9110;
    }

    /** True when the lean path can forward to {@code upstream} (plain HTTP; TLS upstreams use the proxy). */
    public static boolean supports(URI upstream) {
        return upstream != null && "http".equalsIgnoreCase(upstream.getScheme()) && upstream.getHost() != null;
    }

    ThrottleEngine engine() {
        return engine;
    }

    InstantSource clock() {
        return clock;
    }

    AccessLog accessLog() {
        return accessLog;
    }

    /** Where a new upstream connection goes now; the same object until the upstream's address changes. */
    InetSocketAddress upstreamAddress() {
        return upstreamAddress.get();
    }

    /** The upstream's address book, a bean of the connector (its lookups run while the connector does). */
    UpstreamAddress upstreamAddressBook() {
        return upstreamAddress;
    }

    String basePath() {
        return basePath;
    }

    /** The 502s and 504s this path sent for a failed upstream (the proxy path may count into the same). */
    public UpstreamErrors upstreamErrors() {
        return upstreamErrors;
    }

    long upstreamTimeoutMillis() {
        return upstreamTimeoutMillis;
    }

    long requestIdleMillis() {
        return requestIdleMillis;
    }

    ForwardedHeaders forwarded() {
        return forwarded;
    }

    HttpCompliance upstreamCompliance() {
        return upstreamCompliance;
    }

    /** The pool of upstream connections served by {@code selector}'s thread. */
    UpstreamPool pool(ManagedSelector selector, LeanConnector connector) {
        return pools.computeIfAbsent(selector, s -> new UpstreamPool(s, connector, this));
    }
}
