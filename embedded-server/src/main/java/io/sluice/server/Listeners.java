package io.sluice.server;

import io.sluice.engine.policy.Policy;
import io.sluice.server.admin.AdminConnections;
import io.sluice.server.front.ConnectionGuard;
import io.sluice.server.front.LeanConnector;
import io.sluice.server.front.LeanForwarding;
import io.sluice.server.front.PublicConnector;
import io.sluice.server.tls.AdminCertificate;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.function.Supplier;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The listeners' limits, in one place. A connection that sends nothing for {@link #IDLE} is closed; a request being
 * served may stay quiet longer, as long as the longest wait it may have been told to sit out, so an idle timeout never
 * cuts a request Sluice itself made wait. Jetty's handlers keep that promise by themselves: while a request is being
 * handled, Jetty cuts its connection for idleness only when a read or a write is pending (a delay, a deferral, a held
 * permit call, the proxy's wait for the upstream are neither; ListenersTest holds Jetty to it). The lean path keeps
 * it with its own clock, {@link #frontRequestIdle}.
 */
final class Listeners {
    /** Idle timeout of a connection between requests, and while a request's headers or body arrive. */
    static final Duration IDLE = Duration.ofSeconds(30);
    /**
     * Once a stop begins, the idle timeout of every connection: a keep-alive connection between requests (a console,
     * a worker's pool) is closed after this much silence rather than Jetty's second, so a stop takes what its
     * requests in flight take (GracefulHandler waits for those, and a request being handled is not cut for
     * idleness, as above). A body still arriving may pause this long.
     */
    static final Duration SHUTDOWN_IDLE = Duration.ofMillis(250);
    /** The policy's ceilings: progressive delay ({@code maxDelayMillis}) and load deferral ({@code deferMillis}). */
    private static final Duration LONGEST_POLICY_WAIT = Duration.ofSeconds(60 + 60);

    private Listeners() {
    }

    /**
     * Longest a request on the public listener may legitimately be silent: delayed (at most 60 s), then
     * deferred (at most 60 s), then the upstream's answer (up to {@code --upstream-timeout}), plus a margin.
     */
    static Duration frontRequestIdle(Duration upstreamTimeout) {
        return LONGEST_POLICY_WAIT.plus(upstreamTimeout).plusSeconds(10);
    }

    /**
     * The public listener, forwarding the common case on the lean path when {@code lean} is given (the rest goes
     * on to the server's handlers), else every request through the handlers. Its limits are for the open internet:
     * the connections at once, then per address (the live {@code policy}'s trusted proxies aside), the header size,
     * the request head's deadline and the body's minimum rate ({@link ConnectionGuard}).
     */
    static ServerConnector front(Server server, HostPort address, ConnectionLimits limits, LeanForwarding lean,
                                 Supplier<Policy> policy) {
        HttpConfiguration http = http(PublicConnector.httpConfiguration(), limits);
        ServerConnector connector = lean == null ? PublicConnector.create(server, http)
                : LeanConnector.create(server, http, lean);
        bind(connector, address);
        limits.frontGuard().install(connector, policy);
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(limits.frontMaxConnections(), connector));
        return connector;
    }

    /**
     * The admin listener's own server: its own thread pool and connection limit (a flood on the public port
     * takes nothing from it), HTTPS when {@code certificate} is given. Its connections are held by
     * {@link AdminConnections} rather than Jetty's {@link NetworkConnectionLimit}, which stops accepting at the limit
     * and so leaves an operator in the kernel's backlog behind the strangers holding it.
     */
    static ServerConnector admin(Server adminServer, HostPort address, ConnectionLimits limits,
                                 AdminCertificate certificate, AdminConnections.Rules strangers) {
        HttpConfiguration http = http(PublicConnector.anonymousHttp(), limits);
        ServerConnector connector;
        if (certificate == null) {
            connector = new ServerConnector(adminServer, 1, 1, new HttpConnectionFactory(http));
        } else {
            SslContextFactory.Server tls = new SslContextFactory.Server();
            tls.setKeyStore(certificate.keyStore());
            tls.setKeyStorePassword(new String(certificate.password()));
            // The Host check (HostCheck) decides which names are accepted; a pinned self-signed certificate
            // need not list every name an operator uses.
            http.addCustomizer(new SecureRequestCustomizer(false));
            connector = new ServerConnector(adminServer, 1, 1, new SslConnectionFactory(tls, "http/1.1"),
                    new HttpConnectionFactory(http));
        }
        bind(connector, address);
        connector.setName("admin");
        adminServer.addConnector(connector);
        AdminConnections.install(connector, limits.adminMaxConnections(), strangers);
        return connector;
    }

    static Server adminServer(ConnectionLimits limits) {
        QueuedThreadPool threads = new QueuedThreadPool(limits.adminThreads(), 4);
        threads.setName("sluice-admin");
        return new Server(threads);
    }

    /** True when {@code host} is a loopback address or a name for one. */
    static boolean isLoopback(String host) {
        try {
            return host != null && !host.isBlank() && InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static HttpConfiguration http(HttpConfiguration http, ConnectionLimits limits) {
        http.setRequestHeaderSize(limits.requestHeaderBytes());
        return http;
    }

    private static void bind(ServerConnector connector, HostPort address) {
        connector.setHost(address.host());
        connector.setPort(address.port());
        connector.setIdleTimeout(IDLE.toMillis());
        connector.setShutdownIdleTimeout(SHUTDOWN_IDLE.toMillis());
        connector.addBean(new ShutdownIdle(connector, SHUTDOWN_IDLE));
    }
}
