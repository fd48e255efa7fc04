package io.sluice.server.admin;

import io.sluice.server.front.AccessLog;
import java.util.function.Supplier;

/**
 * What the server counts outside the engine, for {@code /metrics}: lines the access log dropped, and the admin
 * listener's connections ({@link AdminConnections}).
 *
 * @param accessLog        the access log's drops (zero without an access log)
 * @param adminConnections the admin listener's connections (zero without the guard)
 */
public record ServerCounters(Supplier<AccessLog.Drops> accessLog, Supplier<AdminConnections.Counts> adminConnections) {
    private static final AccessLog.Drops NO_DROPS = new AccessLog.Drops(0, 0);
    private static final AdminConnections.Counts NO_CONNECTIONS = new AdminConnections.Counts(0, 0, 0, 0, 0, 0);
    /** Nothing counted: no access log, no guard on the admin listener. */
    public static final ServerCounters NONE = new ServerCounters(null, null);

    public ServerCounters {
        accessLog = accessLog == null ? () -> NO_DROPS : accessLog;
        adminConnections = adminConnections == null ? () -> NO_CONNECTIONS : adminConnections;
    }
}
