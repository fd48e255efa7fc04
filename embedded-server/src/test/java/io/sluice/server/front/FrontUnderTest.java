package io.sluice.server.front;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A front end as {@code SluiceServer} builds it (public connector, throttle handler, proxy), on a free port,
 * except that no upstream connection is opened before the first request: the scripted upstreams tell their
 * connections apart by the order they were opened in.
 */
final class FrontUnderTest implements AutoCloseable {
    static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-22T12:00:00Z"));

    /** Limits high enough that every test request is admitted; the rules are tested elsewhere. */
    static final Policy ADMIT_ALL = Policy.defaults()
            .withHitStack(new Policy.HitStack(15, 1_000_000))
            .withPerClient(new Policy.PerClient(10_000))
            .withLoad(new Policy.Load(10_000, 0, 500));

    private final Server server;
    private final ServerConnector connector;
    private final ThrottleEngine engine;

    private FrontUnderTest(Server server, ServerConnector connector, ThrottleEngine engine) {
        this.server = server;
        this.connector = connector;
        this.engine = engine;
    }

    static FrontUnderTest start(FrontPath path, URI upstream, Policy policy) throws Exception {
        return start(path, upstream, policy, null, 0);
    }

    /**
     * With {@code guard} (null: none) installed on the public connector, as {@code SluiceServer} installs it, and at
     * most {@code maxConnections} connections at once (0: no limit).
     */
    static FrontUnderTest start(FrontPath path, URI upstream, Policy policy, ConnectionGuard guard, int maxConnections)
            throws Exception {
        return start(path, upstream, policy, guard, maxConnections, InetAddress::getByName,
                UpstreamAddress.DEFAULT_TTL);
    }

    /** On the lean path, which looks the upstream's name up with {@code resolver} every {@code lookupEvery}. */
    static FrontUnderTest startLean(URI upstream, Policy policy, UpstreamAddress.Resolver resolver,
                                    Duration lookupEvery) throws Exception {
        return start(FrontPath.LEAN, upstream, policy, null, 0, resolver, lookupEvery);
    }

    private static FrontUnderTest start(FrontPath path, URI upstream, Policy policy, ConnectionGuard guard,
                                        int maxConnections, UpstreamAddress.Resolver resolver, Duration lookupEvery)
            throws Exception {
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), CLOCK, policy,
                CrawlerListClassifier.bundled());
        Server server = new Server();
        ServerConnector connector = switch (path) {
            case PROXY_HANDLER -> PublicConnector.create(server, "127.0.0.1", 0);
            case LEAN -> PublicConnector.createLean(server, "127.0.0.1", 0, new LeanForwarding(engine, CLOCK, null,
                    upstream, Duration.ofSeconds(10), Duration.ofSeconds(30), resolver, lookupEvery));
        };
        if (guard != null) {
            guard.install(connector, engine::policy);
        }
        server.addConnector(connector);
        if (maxConnections > 0) {
            server.addBean(new NetworkConnectionLimit(maxConnections, connector));
        }
        // Both paths keep the proxy handler: the lean one hands it whatever is not its common case.
        Handler forwarding = UpstreamProxy.to(upstream, Duration.ofSeconds(10), 0);
        server.setHandler(new ThrottleHandler(engine, CLOCK, null, forwarding));
        server.start();
        return new FrontUnderTest(server, connector, engine);
    }

    int port() {
        return connector.getLocalPort();
    }

    ThrottleEngine engine() {
        return engine;
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the front end did not stop", e);
        }
    }
}
