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
 * @param costliestClients the clients whose requests took the most upstream time over the last minute, costliest
 *                        first (empty from a server older than the field)
 * @param networks        the networks (IPv4 /24, IPv6 /48) of the last minute: the costliest, the busiest and the
 *                        most refused, the costliest first
 * @param networkTable    pressure on the table of networks' costs (null from a server older than the field)
 * @param costLastMinute  what each class's requests cost the upstream over the last minute
 * @param costTotals      what each class's requests cost the upstream since start (never go down)
 * @param costSummary     "what is costing us?": the class, network and route of the largest share of the
 *                        upstream's time over the last minute, and whether it is rising
 * @param browserCheck    the browser check's mode, pressure and funnel; null from a server older than the check
 * @param crawlerVerification where the crawlers' published ranges come from and how old each source is, and what
 *                        reverse DNS has done; null from a server older than the field
 * @param agents          the named agents seen, by category, with their robots.txt compliance, and the trap's counts;
 *                        null from a server older than categories
 * @param autonomousSystems with the server's IP-to-ASN file: the autonomous systems of the last minute (the
 *                        costliest, the busiest and the most refused, the costliest first); empty without one
 * @param asnTable        the IP-to-ASN file in use, or null without one
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
        List<ClientRow> costliestClients,
        List<NetworkRow> networks,
        ClientTableStats networkTable,
        Map<RequestClass, Cost> costLastMinute,
        Map<RequestClass, Cost> costTotals,
        CostSummary costSummary,
        BrowserCheckCounts browserCheck,
        CrawlerVerification crawlerVerification,
        AgentsView agents,
        List<AsnRow> autonomousSystems,
        AsnTableStats asnTable) {

    public Snapshot {
        cluster = cluster == null ? ClusterStatus.standalone(load == null ? 0 : load.inFlight()) : cluster;
        costliestClients = costliestClients == null ? List.of() : costliestClients;
        networks = networks == null ? List.of() : networks;
        costLastMinute = costLastMinute == null ? Map.of() : costLastMinute;
        costTotals = costTotals == null ? Map.of() : costTotals;
        costSummary = costSummary == null ? CostSummary.NONE : costSummary;
        autonomousSystems = autonomousSystems == null ? List.of() : autonomousSystems;
    }

    /** A snapshot without autonomous systems (the form before the IP-to-ASN file). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals,
                    ShadowSummary shadow, ClusterStatus cluster, List<ClientRow> costliestClients,
                    List<NetworkRow> networks, ClientTableStats networkTable, Map<RequestClass, Cost> costLastMinute,
                    Map<RequestClass, Cost> costTotals, CostSummary costSummary, BrowserCheckCounts browserCheck,
                    CrawlerVerification crawlerVerification, AgentsView agents) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, shadow,
                cluster, costliestClients, networks, networkTable, costLastMinute, costTotals, costSummary,
                browserCheck, crawlerVerification, agents, null, null);
    }

    /** A snapshot without the crawler verification's state and agents (the form before they were shown). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals,
                    ShadowSummary shadow, ClusterStatus cluster, List<ClientRow> costliestClients,
                    List<NetworkRow> networks, ClientTableStats networkTable, Map<RequestClass, Cost> costLastMinute,
                    Map<RequestClass, Cost> costTotals, CostSummary costSummary, BrowserCheckCounts browserCheck) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, shadow,
                cluster, costliestClients, networks, networkTable, costLastMinute, costTotals, costSummary,
                browserCheck, null, null, null, null);
    }

    /** A snapshot without the browser check (the form before it existed). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals,
                    ShadowSummary shadow, ClusterStatus cluster, List<ClientRow> costliestClients,
                    List<NetworkRow> networks, ClientTableStats networkTable, Map<RequestClass, Cost> costLastMinute,
                    Map<RequestClass, Cost> costTotals, CostSummary costSummary) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, shadow,
                cluster, costliestClients, networks, networkTable, costLastMinute, costTotals, costSummary, null,
                null, null, null, null);
    }

    /** A snapshot without costs (the form before they were counted). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals,
                    ShadowSummary shadow, ClusterStatus cluster) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, shadow,
                cluster, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** A standalone node's snapshot without a shadow policy (the form before what-if and cluster mode). */
    public Snapshot(Instant takenAt, long policyVersion, Policy.Pause pause, List<SecondCounts> seconds,
                    LoadState load, LatencySummary upstreamLatency, List<ClientRow> topClients,
                    ClientTableStats clients, List<Ban> bans, Map<RequestClass, ClassCounts> totals) {
        this(takenAt, policyVersion, pause, seconds, load, upstreamLatency, topClients, clients, bans, totals, null,
                null);
    }
}
