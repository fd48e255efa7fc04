package io.sluice.server.admin;

import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ShedConnections;
import java.util.function.Supplier;

/**
 * What the server counts outside the engine, for {@code /metrics}: lines the access log dropped, the admin
 * listener's connections ({@link AdminConnections}) and what the public listener's guard cut off.
 *
 * @param accessLog        the access log's drops (zero without an access log)
 * @param adminConnections the admin listener's connections (zero without the guard)
 * @param frontConnections the public listener's connections closed to protect it (zero without its guard)
 */
public record ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections,
                             Supplier<ShedConnections.Counts> frontConnections) {
    private static final AccessLog.Drops NO_DROPS = new AccessLog.Drops(0, 0);
    private static final AdminConnections.Counts NO_CONNECTIONS = new AdminConnections.Counts(0, 0, 0, 0, 0, 0);
    private static final ShedConnections.Counts NONE_SHED = new ShedConnections.Counts(0, 0, 0);
    /** Nothing counted: no access log, no guard on the admin listener. */
    public static final ServerCounters NONE = new ServerCounters(null, null, null);

    public ServerCounters {
        accessLog = accessLog == null ? () -> NO_DROPS : accessLog;
        adminConnections = adminConnections == null ? () -> NO_CONNECTIONS : adminConnections;
        frontConnections = frontConnections == null ? () -> NONE_SHED : frontConnections;
    }

    /** The access log's and the admin listener's counts, without a public listener of this server's own. */
    public ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections) {
        this(accessLog, adminConnections, null);
    }
}
