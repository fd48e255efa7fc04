package io.sluice.server;

import io.sluice.server.admin.AdminConnections;
import io.sluice.server.admin.ServerCounters;
import io.sluice.server.botauth.SignedAgentService;
import io.sluice.server.front.AccessLog;
import io.sluice.server.front.ConnectionGuard;
import io.sluice.server.front.ShedConnections;
import io.sluice.server.front.UpstreamErrors;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The front end's counts read into the admin API's values: the admin API and the front end never depend on each
 * other, so the composition translates between them.
 */
final class ListenerCounters {
    private ListenerCounters() {
    }

    /**
     * @param accessLog    the access log, or null without one
     * @param signedAgents Web Bot Auth on this front end
     */
    static ServerCounters of(AccessLog accessLog, ServerConnector admin, ServerConnector front,
                             SignedAgentService signedAgents) {
        ShedConnections shed = front.getBean(ConnectionGuard.class).shed();
        UpstreamErrors upstreamErrors = front.getBean(UpstreamErrors.class);
        return new ServerCounters(accessLog == null ? null : () -> drops(accessLog.drops()),
                admin.getBean(AdminConnections.class)::counts, () -> shed(shed.counts()),
                () -> failures(upstreamErrors.counts()), () -> signed(signedAgents.counts()));
    }

    private static ServerCounters.SignedAgents signed(SignedAgentService.Counts counts) {
        return new ServerCounters.SignedAgents(counts.verified(), counts.invalid(), counts.unverified(),
                counts.fetched(), counts.failed(), counts.skipped());
    }

    private static ServerCounters.UpstreamFailures failures(UpstreamErrors.Counts counts) {
        return new ServerCounters.UpstreamFailures(counts.connect(), counts.timeout(), counts.broken());
    }

    private static ServerCounters.LogDrops drops(AccessLog.Drops drops) {
        return new ServerCounters.LogDrops(drops.queueFull(), drops.writeFailed());
    }

    private static ServerCounters.FrontShed shed(ShedConnections.Counts counts) {
        return new ServerCounters.FrontShed(counts.overAddressCap(), counts.headTimeouts(), counts.slowBodies());
    }
}
