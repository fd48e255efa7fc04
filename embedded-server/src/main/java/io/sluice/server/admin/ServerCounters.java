package io.sluice.server.admin;

import java.util.function.Supplier;

/**
 * What the server counts outside the engine, for {@code /metrics}: lines the access log dropped, the admin
 * listener's connections ({@link AdminConnections}), what the public listener's guard cut off and the requests it
 * answered 502 or 504 because the upstream failed, and what Web Bot Auth verification found. The front end's
 * counts come in values of this API's own, so that the admin API and the front end never depend on each other
 * (the composition reads one and hands it to the other).
 *
 * @param accessLog        the access log's drops (zero without an access log)
 * @param adminConnections the admin listener's connections (zero without the guard)
 * @param frontConnections the public listener's connections closed to protect it (zero without its guard)
 * @param upstreamErrors   the front end's own 502s and 504s (zero without a front end of this server's own)
 * @param signedAgents     signed requests and key directory fetches (zero while verification is off)
 */
public record ServerCounters(Supplier<LogDrops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                             Supplier<FrontShed> frontConnections, Supplier<UpstreamFailures> upstreamErrors,
                             Supplier<SignedAgents> signedAgents) {
    private static final LogDrops NO_DROPS = new LogDrops(0, 0);
    private static final FrontShed NONE_SHED = new FrontShed(0, 0, 0);
    private static final UpstreamFailures NO_FAILURES = new UpstreamFailures(0, 0, 0);
    private static final SignedAgents NOT_VERIFIED = new SignedAgents(0, 0, 0, 0, 0, 0);
    /** Nothing counted: no access log, no guard on the admin listener. */
    public static final ServerCounters NONE = new ServerCounters(null, null, null, null, null);

    public ServerCounters {
        accessLog = accessLog == null ? () -> NO_DROPS : accessLog;
        adminConnections = adminConnections == null ? () -> AdminConnections.Counts.NONE : adminConnections;
        frontConnections = frontConnections == null ? () -> NONE_SHED : frontConnections;
        upstreamErrors = upstreamErrors == null ? () -> NO_FAILURES : upstreamErrors;
        signedAgents = signedAgents == null ? () -> NOT_VERIFIED : signedAgents;
    }

    /** The listeners' counts, without signature verification. */
    public ServerCounters(Supplier<LogDrops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                          Supplier<FrontShed> frontConnections, Supplier<UpstreamFailures> upstreamErrors) {
        this(accessLog, adminConnections, frontConnections, upstreamErrors, null);
    }

    /** The access log's and the admin listener's counts, without a public listener of this server's own. */
    public ServerCounters(Supplier<LogDrops> accessLog, Supplier<AdminConnections.Counts> adminConnections) {
        this(accessLog, adminConnections, null, null, null);
    }

    /** These counts with {@code counts} as what Web Bot Auth verification found. */
    public ServerCounters withSignedAgents(Supplier<SignedAgents> counts) {
        return new ServerCounters(accessLog, adminConnections, frontConnections, upstreamErrors, counts);
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

    /**
     * Web Bot Auth since start (docs/manual/signed-agents.md): the draft's three outcomes of a signed request, and
     * the fetches of agents' key directories.
     *
     * @param verified            requests whose signature verified: a verified agent
     * @param invalid             signed requests refused: a header that does not parse, a tampered component, another
     *                            key, an expired signature, a replayed nonce
     * @param unverified          signed requests whose key was not held (yet): their directory is being fetched, or
     *                            cannot be had
     * @param directoriesFetched  key directories fetched and read
     * @param directoriesFailed   directory fetches that failed (a refused address, a timeout, too large, not 200)
     * @param fetchesNotStarted   directory fetches not started: the per-host or overall bound was reached
     */
    public record SignedAgents(long verified, long invalid, long unverified, long directoriesFetched,
                               long directoriesFailed, long fetchesNotStarted) {
    }
}
