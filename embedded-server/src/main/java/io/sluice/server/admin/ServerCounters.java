package io.sluice.server.admin;

import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ShedConnections;
import io.sluice.server.front.UpstreamErrors;
import java.util.function.Supplier;

/**
 * What the server counts outside the engine, for {@code /metrics}: lines the access log dropped, the admin
 * listener's connections ({@link AdminConnections}) and what the public listener's guard cut off.
 *
 * @param accessLog        the access log's drops (zero without an access log)
 * @param adminConnections the admin listener's connections (zero without the guard)
 * @param frontConnections the public listener's connections closed to protect it (zero without its guard)
 * @param upstreamErrors   the 502s and 504s sent because the upstream failed (zero without a forwarding path)
 */
public record ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                             Supplier<ShedConnections.Counts> frontConnections,
                             Supplier<UpstreamErrors.Counts> upstreamErrors) {
    private static final AccessLog.Drops NO_DROPS = new AccessLog.Drops(0, 0);
    private static final AdminConnections.Counts NO_CONNECTIONS = new AdminConnections.Counts(0, 0, 0, 0, 0, 0);
    private static final ShedConnections.Counts NONE_SHED = new ShedConnections.Counts(0, 0, 0);
    private static final UpstreamErrors.Counts NO_ERRORS = new UpstreamErrors.Counts(0, 0, 0);
    /** Nothing counted: no access log, no guard on the admin listener. */
    public static final ServerCounters NONE = new ServerCounters(null, null, null, null);

    public ServerCounters {
        accessLog = accessLog == null ? () -> NO_DROPS : accessLog;
        adminConnections = adminConnections == null ? () -> NO_CONNECTIONS : adminConnections;
        frontConnections = frontConnections == null ? () -> NONE_SHED : frontConnections;
        upstreamErrors = upstreamErrors == null ? () -> NO_ERRORS : upstreamErrors;
    }

    /** Without upstream errors of this server's own. */
    public ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                          Supplier<ShedConnections.Counts> frontConnections) {
        this(accessLog, adminConnections, frontConnections, null);
    }

    /** The access log's and the admin listener's counts, without a public listener of this server's own. */
    public ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections) {
        this(accessLog, adminConnections, null, null);
    }
}
