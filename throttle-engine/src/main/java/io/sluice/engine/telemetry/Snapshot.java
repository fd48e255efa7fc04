package io.sluice.engine.telemetry;

import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the console shows, taken at one instant; immutable, serialised as is by
 * {@code GET /api/v1/snapshot}.
 *
 * @param takenAt         when
 * @param policyVersion   the live policy's version
 * @param pause           the live pause flags
 * @param seconds         per-second counts, oldest first, for the last five minutes
 * @param load            load against its limits, now
 * @param upstreamLatency upstream latency percentiles over the last minute
 * @param topClients      the busiest clients by hits in the window, busiest first
 * @param clients         pressure on the client tables
 * @param bans            the bans in force
 * @param totals          counts by class and outcome since the engine started (never go down)
 * @param shadow          the shadow policy's summary, or null when none is installed
 * @param cluster         which node answered and how it stands in its cluster ({@code STANDALONE} without one)
 * @param browserCheck    the browser check's mode, pressure and funnel; null from a server older than the check
 */
public record Snapshot(
        Instant takenAt,
        long policyVersion,
        Policy.Pause pause,
        List<SecondCounts> seconds,
        LoadState load,
        LatencySummary upstreamLatency,
        List<ClientRow> topClients,
        ClientTableStats clients,
        List<Ban> bans,
        Map<RequestClass, ClassCounts> totals,
        ShadowSummary shadow,
        ClusterStatus cluster,
        BrowserCheckCounts browserCheck) {

    public Snapshot {
        cluster = cluster == null ? ClusterStatus.standalone(load == null ? 0 : load.inFlight()) : cluster;
    }

    /** A standalone node's snapshot without a shadow policy (the form before what-if and cluster mode). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, null,
                null, null);
    }

    /** A snapshot from a server older than the browser check. */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals,
                    ShadowSummary shadow, ClusterStatus cluster) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, shadow,
                cluster, null);
    }
}
