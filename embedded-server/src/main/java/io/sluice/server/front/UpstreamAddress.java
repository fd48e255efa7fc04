package io.sluice.server.front;

import io.sluice.engine.net.IpAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * Where the lean path connects to reach the upstream: its host name looked up again every {@code ttl} on a thread of
 * its own, never on a request's path (a lookup can block for seconds), as nginx's {@code resolver ... valid=}
 * re-resolves an upstream's name. A lookup that fails keeps the last good address and is logged; an address that
 * changed is used by the next connection opened, and the pools drop idle connections to the old one
 * ({@link UpstreamPool#acquire}). An address literal is never looked up again.
 *
 * <p>Started and stopped with the connector it is a bean of.
 */
final class UpstreamAddress extends AbstractLifeCycle {
    /** Default time a looked-up address is used before it is looked up again. */
    static final Duration DEFAULT_TTL = Duration.ofSeconds(30);
    private static final System.Logger LOG = System.getLogger(UpstreamAddress.class.getName());

    /** Looks a host name up: the system's resolver, or a test's. */
    @FunctionalInterface
    interface Resolver {
        InetAddress resolve(String host) throws UnknownHostException;
    }

    private final String host;
    private final int port;
    private final Duration ttl;
    private final Resolver resolver;
    private final boolean literal;
    private volatile InetSocketAddress current;
    private ScheduledExecutorService lookups;

    UpstreamAddress(String host, int port, Duration ttl, Resolver resolver) {
        this.host = host;
        this.port = port;
        this.ttl = ttl;
        this.resolver = resolver;
        this.literal = isLiteral(host);
        InetSocketAddress first;
        try {
            first = new InetSocketAddress(resolver.resolve(host), port);
        } catch (UnknownHostException | RuntimeException e) {
            // Connections fail with a 502 until a lookup succeeds.
            LOG.log(System.Logger.Level.WARNING, "the upstream " + host + " cannot be resolved yet: " + e);
            first = InetSocketAddress.createUnresolved(host, port);
        }
        this.current = first;
    }

    /** The address to connect to now. The same object until the address changes. */
    InetSocketAddress get() {
        return current;
    }

    /** Looks the name up once; keeps the last good address when the lookup fails or answers the same. */
    void refresh() {
        InetAddress found;
        try {
            found = resolver.resolve(host);
        } catch (UnknownHostException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "looking up the upstream " + host + " failed (" + e + "); still "
                    + "using " + current);
            return;
        }
        InetSocketAddress last = current;
        if (!last.isUnresolved() && found.equals(last.getAddress())) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "the upstream " + host + " is now at " + found.getHostAddress() + " (was "
                + last + ")");
        current = new InetSocketAddress(found, port);
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        if (literal) {
            return;
        }
        lookups = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-upstream-lookup");
            thread.setDaemon(true);
            return thread;
        });
        long millis = ttl.toMillis();
        lookups.scheduleWithFixedDelay(this::refresh, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() throws Exception {
        if (lookups != null) {
            lookups.shutdownNow();
            lookups = null;
        }
        super.doStop();
    }

    private static boolean isLiteral(String host) {
        return IpAddress.tryParse(host.startsWith("[") && host.endsWith("]")
                ? host.substring(1, host.length() - 1) : host) != null;
    }
}
