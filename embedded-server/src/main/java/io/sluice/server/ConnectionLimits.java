package io.sluice.server;

import io.sluice.server.front.ConnectionGuard;
import java.time.Duration;

/**
 * What one client, or many, can take of the listeners. The admin listener has its own threads and its own
 * connection limit, so a flood on the public port never locks the operators out; on the public listener one
 * address holds at most its share of the connections, and a request must arrive at a minimum pace, so neither
 * many sockets nor slow ones from one address keep anyone else out (docs/architecture.md, "Under attack").
 *
 * @param frontMaxConnections      connections the public listener holds at once; past it, new ones wait in the
 *                                 kernel's backlog until one closes
 * @param adminMaxConnections      the same for the admin listener (operators, dashboards, crawler workers)
 * @param adminThreads             the admin listener's own thread pool
 * @param requestHeaderBytes       largest request line and headers either listener reads (431 past it)
 * @param frontPerAddress          connections one address (IPv6: one /64) holds on the public listener at once,
 *                                 trusted proxies aside; past it a new one is closed on arrival
 * @param requestHeadTimeout       the time a request head has to arrive whole on the public listener (from the
 *                                 connection's opening for the first request, from its first byte for the next)
 * @param minBodyBytesPerSecond    the slowest a request body may arrive on the public listener once read, after an
 *                                 allowance of {@code requestHeadTimeout}; 0: no minimum
 */
public record ConnectionLimits(int frontMaxConnections, int adminMaxConnections, int adminThreads,
                               int requestHeaderBytes, int frontPerAddress, Duration requestHeadTimeout,
                               long minBodyBytesPerSecond) {

    public static final ConnectionLimits DEFAULTS = new ConnectionLimits(10_000, 256, 32, 8 * 1024);

    public ConnectionLimits {
        if (frontMaxConnections < 1 || adminMaxConnections < 1 || adminThreads < 8 || requestHeaderBytes < 1024) {
            throw new IllegalArgumentException("connection limits must be positive, the admin listener needs 8 "
                    + "threads or more and headers of 1 KiB or more must be allowed");
        }
        if (frontPerAddress < 1 || requestHeadTimeout == null || requestHeadTimeout.isNegative()
                || requestHeadTimeout.isZero() || minBodyBytesPerSecond < 0) {
            throw new IllegalArgumentException("the connections per address and the request head timeout must be "
                    + "positive, the minimum body rate 0 or more");
        }
    }

    /** The public listener's per-address cap, head deadline and body rate at their defaults. */
    public ConnectionLimits(int frontMaxConnections, int adminMaxConnections, int adminThreads,
                            int requestHeaderBytes) {
        this(frontMaxConnections, adminMaxConnections, adminThreads, requestHeaderBytes,
                ConnectionGuard.DEFAULT_PER_ADDRESS, ConnectionGuard.DEFAULT_HEAD_TIMEOUT,
                ConnectionGuard.DEFAULT_MIN_BODY_RATE);
    }

    public ConnectionLimits withFrontMaxConnections(int value) {
        return new ConnectionLimits(value, adminMaxConnections, adminThreads, requestHeaderBytes, frontPerAddress,
                requestHeadTimeout, minBodyBytesPerSecond);
    }

    /** The same limits with the public listener's per-address cap, head deadline and minimum body rate given. */
    public ConnectionLimits withFrontPacing(int perAddress, Duration headTimeout, long minBodyRate) {
        return new ConnectionLimits(frontMaxConnections, adminMaxConnections, adminThreads, requestHeaderBytes,
                perAddress, headTimeout, minBodyRate);
    }

    /** The public listener's guard for these limits. */
    ConnectionGuard frontGuard() {
        return new ConnectionGuard(frontPerAddress, requestHeadTimeout, minBodyBytesPerSecond);
    }
}
