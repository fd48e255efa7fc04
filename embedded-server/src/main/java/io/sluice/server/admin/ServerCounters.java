package io.sluice.server.admin;

import java.util.function.Supplier;

/**
 * What the server counts outside the engine, for {@code /metrics}: lines the access log dropped, the admin
 * listener's connections ({@link AdminConnections}), what the public listener's guard cut off and the requests it
 * answered 502 or 504 because the upstream failed. The front end's
 * counts come in values of this API's own, so that the admin API and the front end never depend on each other
 * (the composition reads one and hands it to the other).
 *
 * @param accessLog        the access log's drops (zero without an access log)
 * @param adminConnections the admin listener's connections (zero without the guard)
 * @param frontConnections the public listener's connections closed to protect it (zero without its guard)
 * @param upstreamErrors   the front end's own 502s and 504s (zero without a front end of this server's own)
 */
public record ServerCounters(Supplier<LogDrops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                             Supplier<FrontShed> frontConnections, Supplier<UpstreamFailures> upstreamErrors) {
    private static final LogDrops NO_DROPS = new LogDrops(0, 0);
    private static final FrontShed NONE_SHED = new FrontShed(0, 0, 0);
    private static final UpstreamFailures NO_FAILURES = new UpstreamFailures(0, 0, 0);
    /** Nothing counted: no access log, no guard on the admin listener. */
    public static final ServerCounters NONE = new ServerCounters(null, null, null, null);

    public ServerCounters {
        accessLog = accessLog == null ? () -> NO_DROPS : accessLog;
        adminConnections = adminConnections == null ? () -> AdminConnections.Counts.NONE : adminConnections;
        frontConnections = frontConnections == null ? () -> NONE_SHED : frontConnections;
        upstreamErrors = upstreamErrors == null ? () -> NO_FAILURES : upstreamErrors;
    }

    /** The access log's and the admin listener's counts, without a public listener of this server's own. */
    public ServerCounters(Supplier<LogDrops> accessLog, Supplier<AdminConnections.Counts> adminConnections) {
        this(accessLog, adminConnections, null, null);
    }

    /**
     * Access log lines dropped since start.
     *
     * @param queueFull   the writer could not keep up
     * @param writeFailed the log could not be written (a full disk)
     */
    public record LogDrops(long queueFull, long writeFailed) {
    }

    /**
     * The public listener's connections closed to protect it, since start.
     *
     * @param overAddressCap closed on arrival: their address held its share of the listener
     * @param headTimeouts   a request head was not complete within its deadline
     * @param slowBodies     a request body arrived below the minimum rate
     */
    public record FrontShed(long overAddressCap, long headTimeouts, long slowBodies) {
    }

    /**
     * Requests the front end answered 502 or 504 because the upstream failed, since start (an upstream's own 5xx is
     * not counted).
     *
     * @param connect no connection: refused, unreachable, its name not found
     * @param timeout no answer within {@code --upstream-timeout}
     * @param broken  the connection failed after the request went out, before a response began
     */
    public record UpstreamFailures(long connect, long timeout, long broken) {
    }
}
