package io.sluice.server.admin;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.GovernorSnapshot;
import io.sluice.engine.telemetry.AgentRow;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.CrawlerVerification;
import io.sluice.engine.telemetry.NetworkInFlight;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * {@code GET /metrics}: the engine's snapshot in Prometheus text format. One snapshot is taken per
 * scrape and every gauge reads from it, so the numbers of one scrape agree with each other.
 */
final class SluiceMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    /** Counters named correctly beside an old gauge of the same base name, which the library refuses in one. */
    private final PrometheusRegistry besideOldNames = new PrometheusRegistry();
    private final Supplier<Snapshot> snapshots;
    private final Supplier<GovernorSnapshot> governorSnapshots;
    private Snapshot current;
    private GovernorSnapshot governor;

    SluiceMetrics(ThrottleEngine engine, Supplier<GovernorSnapshot> governorSnapshots, ServerCounters counters) {
        this.snapshots = engine::snapshot;
        this.governorSnapshots = governorSnapshots;
        CounterWithCallback.builder().name("sluice_automatic_bans_not_made_total")
                .help("Offenders escalation did not ban as it should have, since start: limit (the most "
                        + "automatic bans were in force: refused by their rule, not banned), queue_full (banned in "
                        + "memory on this node but never written, audited nor shared: the policy writer's queue was "
                        + "full)")
                .labelNames("reason")
                .callback(cb -> {
                    cb.call(engine.automaticBansDropped(), "limit");
                    cb.call(engine.automaticBansUnwritten(), "queue_full");
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_access_log_dropped_lines_total")
                .help("Access log lines dropped since start: queue_full (the writer could not keep up), write_failed "
                        + "(the log could not be written, e.g. a full disk)")
                .labelNames("reason")
                .callback(cb -> {
                    ServerCounters.LogDrops drops = counters.accessLog().get();
                    cb.call(drops.queueFull(), "queue_full");
                    cb.call(drops.writeFailed(), "write_failed");
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_admin_connections_closed_total")
                .help("Admin connections closed before presenting a live token: per_address (at the limit, one "
                        + "beyond its address's share of strangers), full (every connection was an operator's), "
                        + "evicted (the oldest, to make room), deadline (no request with a live token in time)")
                .labelNames("reason")
                .callback(cb -> {
                    AdminConnections.Counts connections = counters.adminConnections().get();
                    cb.call(connections.evictedOverShare(), "per_address");
                    cb.call(connections.refusedFull(), "full");
                    cb.call(connections.evicted(), "evicted");
                    cb.call(connections.expired(), "deadline");
                })
                .register(registry);
        GaugeWithCallback.builder().name("sluice_admin_connections")
                .help("Admin connections open: stranger (no live token presented yet) or operator (any role)")
                .labelNames("kind")
                .callback(cb -> {
                    AdminConnections.Counts connections = counters.adminConnections().get();
                    cb.call(connections.strangers(), "stranger");
                    cb.call(connections.operators(), "operator");
                })
                .register(registry);
        GaugeWithCallback.builder().name("sluice_admin_connections_by_role")
                .help("Admin connections of read and worker tokens (admin's are the operators' rest)")
                .labelNames("role")
                .callback(cb -> {
                    AdminConnections.Counts connections = counters.adminConnections().get();
                    cb.call(connections.readers(), "read");
                    cb.call(connections.workers(), "worker");
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_admin_connections_refused_total")
                .help("Admin calls with a live token refused with a 503: the room left on the listener is kept for "
                        + "higher roles")
                .callback(cb -> cb.call(counters.adminConnections().get().refusedRoom()))
                .register(registry);
        gauge("sluice_admin_held_permit_calls", "Permit calls held now, waiting for a grant",
                () -> counters.adminConnections().get().held());
        CounterWithCallback.builder().name("sluice_admin_permit_calls_not_held_total")
                .help("Permit calls answered at once, not held: their token held its share of held calls")
                .callback(cb -> cb.call(counters.adminConnections().get().notHeld()))
                .register(registry);
        CounterWithCallback.builder().name("sluice_requests_total")
                .help("Requests since start, by class and outcome (ADMITTED, DELAYED or the refusal reason)")
                .labelNames("class", "outcome")
                .callback(cb -> byOutcome(current.totals()).forEach((key, value) -> cb.call(value, key.get(0),
                        key.get(1))))
                .register(registry);
        GaugeWithCallback.builder().name("sluice_requests_last_minute")
                .help("Requests in the last 60 complete seconds, by class and outcome")
                .labelNames("class", "outcome")
                .callback(cb -> lastMinute().forEach((key, value) -> cb.call(value, key.get(0), key.get(1))))
                .register(registry);
        gauge("sluice_in_flight", "Requests admitted and not yet completed", () -> current.load().inFlight());
        gauge("sluice_waiting", "Requests parked by load deferral", () -> current.load().waiting());
        gauge("sluice_load_max_active", "The policy's load.maxActive", () -> current.load().maxActive());
        gauge("sluice_clients_tracked", "Clients held in the client table", () -> current.clients().tracked());
        gauge("sluice_clients_capacity", "Most clients the table holds", () -> current.clients().capacity());
        gauge("sluice_clients_evicted", "Clients evicted since start (kept for existing dashboards: "
                + "sluice_clients_evicted_total is the same count as a counter)", () -> current.clients().evicted());
        // A count since start is a counter: rate() and increase() need the _total name and type to treat a restart
        // as a reset. The gauge above stays, it is a public name; the client library takes both for one metric
        // (it strips _total), so the counter lives in a registry of its own, written after the first.
        CounterWithCallback.builder().name("sluice_clients_evicted_total")
                .help("Clients evicted from the client table since start (it was full: their counts are lost)")
                .callback(cb -> cb.call(current.clients().evicted()))
                .register(besideOldNames);
        CounterWithCallback.builder().name("sluice_browser_check_total")
                .help("The browser check's funnel since start: pages answered with the interstitial (challenged), "
                        + "passes earned (passed, passed_weak: by the no-JavaScript path), answers refused, requests "
                        + "served on a pass, passes dropped over their limits, passes withheld (a right answer from a "
                        + "network waiting out its cooldown after a drop), requests over their network's concurrency "
                        + "limit (over_network_concurrency: pages challenged, the rest refused)")
                .labelNames("step")
                .callback(cb -> {
                    BrowserCheckCounts check = current.browserCheck();
                    if (check != null) {
                        cb.call(check.challenged(), "challenged");
                        cb.call(check.passesEarned(), "passed");
                        cb.call(check.weakPassesEarned(), "passed_weak");
                        cb.call(check.answersRefused(), "refused");
                        cb.call(check.servedOnPass(), "served_on_pass");
                        cb.call(check.passesDropped(), "dropped");
                        cb.call(check.passesWithheld(), "withheld");
                        cb.call(check.overNetworkConcurrency(), "over_network_concurrency");
                    }
                })
                .register(registry);
        gauge("sluice_browser_check_passes_in_use", "Passes seen lately (each pass's hit stack the engine holds)",
                () -> current.browserCheck() == null ? 0 : current.browserCheck().passesInUse());
        // one network's figures, not a label per network: the networks come and go, a series each would not
        GaugeWithCallback.builder().name("sluice_browser_check_busiest_network_in_flight")
                .help("Requests in flight of the network with the most on this node, as its concurrency limits count "
                        + "them (pass: without, or with one); the snapshot's browserCheck.busiestNetworks names it")
                .labelNames("pass")
                .callback(cb -> {
                    BrowserCheckCounts check = current.browserCheck();
                    NetworkInFlight busiest = check == null || check.busiestNetworks().isEmpty() ? null
                            : check.busiestNetworks().get(0);
                    cb.call(busiest == null ? 0 : busiest.withoutPass(), "without");
                    cb.call(busiest == null ? 0 : busiest.onPass(), "with");
                })
                .register(registry);
        gauge("sluice_browser_check_networks_tracked", "Networks held in the browser check's budget tables",
                () -> current.browserCheck() == null ? 0 : current.browserCheck().networks().tracked());
        CounterWithCallback.builder().name("sluice_browser_check_networks_evicted_total")
                .help("Networks evicted from the browser check's budget tables since start (they were full or idle: "
                        + "their hits are lost; requests in flight are kept until they complete)")
                .callback(cb -> cb.call(current.browserCheck() == null ? 0
                        : current.browserCheck().networks().evicted()))
                .register(registry);
        // Per named agent: bounded by the crawler list (the snapshot carries the busiest 200), never by clients.
        CounterWithCallback.builder().name("sluice_agent_requests_total")
                .help("Requests of each named agent (a crawler-list entry) that passed pause and bans, since start, "
                        + "by category")
                .labelNames("agent", "category")
                .callback(cb -> agentRows().forEach(row -> cb.call(row.requests(), row.name(),
                        row.category().wire())))
                .register(registry);
        CounterWithCallback.builder().name("sluice_robots_disallowed_total")
                .help("Requests of each named agent to a path the upstream's robots.txt disallows for its group (the "
                        + "trap path included), since start: 0 for an agent that keeps robots.txt")
                .labelNames("agent", "category")
                .callback(cb -> agentRows().forEach(row -> cb.call(row.disallowed(), row.name(),
                        row.category().wire())))
                .register(registry);
        CounterWithCallback.builder().name("sluice_trap_fetches_total")
                .help("Requests to the trap path (agents.trap.path), since start")
                .callback(cb -> cb.call(current.agents() == null ? 0 : current.agents().trapFetches()))
                .register(registry);
        // Web Bot Auth: read from the verifier at each scrape (it is the front end's, not the engine's snapshot's).
        CounterWithCallback.builder().name("sluice_signed_agent_requests_total")
                .help("Requests signed for Web Bot Auth since start, by what verification found: verified (a "
                        + "verified agent), invalid (a header that does not parse, a tampered component, another key, "
                        + "an expired signature, a replayed nonce), unverified (the key is not held yet: its "
                        + "directory is being fetched, or cannot be had)")
                .labelNames("outcome")
                .callback(cb -> {
                    ServerCounters.SignedAgents signed = counters.signedAgents().get();
                    cb.call(signed.verified(), "verified");
                    cb.call(signed.invalid(), "invalid");
                    cb.call(signed.unverified(), "unverified");
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_signed_agent_directory_fetches_total")
                .help("Fetches of agents' key directories since start: fetched (read and held), failed (a refused "
                        + "address, a timeout, too large, not 200, not a key set), not_started (the per-host or "
                        + "overall bound on fetches running was reached)")
                .labelNames("outcome")
                .callback(cb -> {
                    ServerCounters.SignedAgents signed = counters.signedAgents().get();
                    cb.call(signed.directoriesFetched(), "fetched");
                    cb.call(signed.directoriesFailed(), "failed");
                    cb.call(signed.fetchesNotStarted(), "not_started");
                })
                .register(registry);
        gauge("sluice_browser_check_under_pressure", "1 while the browser check counts the site as under pressure "
                + "(adaptive mode then asks every browser claim without a pass)",
                () -> current.browserCheck() != null && current.browserCheck().underPressure() ? 1 : 0);
        GaugeWithCallback.builder().name("sluice_crawler_ranges_age_seconds")
                .help("Age of each source of the crawlers' published ranges in use: seconds since the copy was "
                        + "taken from the crawlers' publishers (its oldest fetched date, else when Sluice read it); "
                        + "source is bundled or operator (--crawler-ranges, or crawler-ranges update)")
                .labelNames("source")
                .callback(cb -> {
                    for (CrawlerVerification.RangesSource source : rangesSources()) {
                        if (source.ageSeconds() >= 0) {
                            cb.call(source.ageSeconds(), source.source());
                        }
                    }
                })
                .register(registry);
        GaugeWithCallback.builder().name("sluice_crawler_ranges_kept")
                .help("1 while a source's last read was not used (it failed, or its copy was refused: a block wider "
                        + "than /8 or /16, or shrunk by more than half) and its last good copy is kept")
                .labelNames("source")
                .callback(cb -> {
                    for (CrawlerVerification.RangesSource source : rangesSources()) {
                        cb.call(source.problem() == null ? 0 : 1, source.source());
                    }
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_crawler_dns_lookups_total")
                .help("Reverse-DNS checks of crawler claims since start, by result: verified, failed (DNS answered "
                        + "and did not confirm), unanswered (no answer: asked again soon, never remembered as a "
                        + "failure), deferred (not started: the claim's network or crawler had its quota in flight), "
                        + "refused (the lookup queue was full)")
                .labelNames("result")
                .callback(cb -> {
                    CrawlerVerification.Lookups lookups = current.crawlerVerification() == null ? null
                            : current.crawlerVerification().lookups();
                    if (lookups != null) {
                        cb.call(lookups.verified(), "verified");
                        cb.call(lookups.failed(), "failed");
                        cb.call(lookups.unanswered(), "unanswered");
                        cb.call(lookups.deferred(), "deferred");
                        cb.call(lookups.refused(), "refused");
                    }
                })
                .register(registry);
        gauge("sluice_crawler_dns_lookups_in_flight", "Reverse-DNS checks of crawler claims queued or running",
                () -> current.crawlerVerification() == null || current.crawlerVerification().lookups() == null ? 0
                        : current.crawlerVerification().lookups().inFlight());
        gauge("sluice_policy_version", "Version of the live policy", () -> current.policyVersion());
        gauge("sluice_bans", "Bans in force", () -> current.bans().size());
        gauge("sluice_paused", "1 when the whole service is paused", () -> current.pause().all() ? 1 : 0);
        gauge("sluice_cluster_degraded", "1 when this node cannot rely on the cluster's Redis and serves on local "
                + "state (0 when healthy or standalone)",
                () -> current.cluster().state() == ClusterState.DEGRADED ? 1 : 0);
        gauge("sluice_cluster_nodes", "Cluster nodes reachable at the last reading, this one included (1 standalone)",
                () -> current.cluster().nodes());
        gauge("sluice_cluster_in_flight", "Requests in flight across the reachable nodes, as last published",
                () -> current.cluster().inFlight());
        gauge("sluice_governor_domains", "Domains the crawl governor holds state for", () -> governor.tracked());
        gauge("sluice_governor_domains_given_up", "Domains given up (among those the snapshot lists)",
                () -> governor.domains().stream().filter(DomainView::givenUp).count());
        gauge("sluice_governor_breakers_open", "Domains whose breaker is open or half-open",
                () -> governor.domains().stream().filter(d -> d.breaker() != BreakerState.CLOSED).count());
        gauge("sluice_governor_alerts", "Give-up alerts held (the newest 100)", () -> governor.alerts().size());
        CounterWithCallback.builder().name("sluice_governor_reports_ignored_total")
                .help("Worker reports ignored since start: the worker's token held no grant of the domain to report on")
                .callback(cb -> cb.call(governor.ignoredReports()))
                .register(registry);
        CounterWithCallback.builder().name("sluice_front_connections_shed_total")
                .help("Public-listener connections closed to protect it, since start: over_address_cap (closed on "
                        + "arrival, its address held its share), head_timeout (request head not whole in time), "
                        + "slow_body (request body below the minimum rate)")
                .labelNames("reason")
                .callback(cb -> {
                    ServerCounters.FrontShed shed = counters.frontConnections().get();
                    cb.call(shed.overAddressCap(), "over_address_cap");
                    cb.call(shed.headTimeouts(), "head_timeout");
                    cb.call(shed.slowBodies(), "slow_body");
                })
                .register(registry);
        CounterWithCallback.builder().name("sluice_upstream_errors_total")
                .help("Requests answered 502 or 504 by Sluice because the upstream failed, since start: connect (no "
                        + "connection), timeout (no answer within --upstream-timeout: 504), broken (the connection "
                        + "failed before a response began). The upstream's own 5xx are not counted")
                .labelNames("reason")
                .callback(cb -> {
                    ServerCounters.UpstreamFailures errors = counters.upstreamErrors().get();
                    cb.call(errors.connect(), "connect");
                    cb.call(errors.timeout(), "timeout");
                    cb.call(errors.broken(), "broken");
                })
                .register(registry);
        // What requests cost the upstream, per class only (a client's or network's label would be unbounded).
        costCounter("sluice_cost_requests_total", "Admitted requests completed with a measured cost, since start",
                Cost::requests, 1);
        costCounter("sluice_cost_weight_total", "Their route weight, summed, since start", Cost::weight, 1);
        costCounter("sluice_cost_upstream_seconds_total", "Time with the upstream (admission to the response's end), "
                + "summed, since start", Cost::upstreamMicros, 1e6);
        costCounter("sluice_cost_upstream_first_byte_seconds_total", "Time to the upstream's first byte, summed, "
                + "since start", Cost::firstByteMicros, 1e6);
        costCounter("sluice_cost_request_bytes_total", "Request body bytes read from clients, since start",
                Cost::bytesIn, 1);
        costCounter("sluice_cost_response_bytes_total", "Response body bytes written to clients, since start",
                Cost::bytesOut, 1);
        gauge("sluice_cost_networks_tracked", "Networks (IPv4 /24, IPv6 /48) whose costs are held",
                () -> networkTable().tracked());
        gauge("sluice_cost_networks_capacity", "Most networks the cost table holds", () -> networkTable().capacity());
        CounterWithCallback.builder().name("sluice_cost_networks_evicted_total")
                .help("Networks evicted from the cost table since start (it was full: their costs are lost)")
                .callback(cb -> cb.call(networkTable().evicted()))
                .register(registry);
        GaugeWithCallback.builder().name("sluice_upstream_latency_seconds")
                .help("Upstream latency over the last minute")
                .labelNames("quantile")
                .callback(cb -> {
                    cb.call(current.upstreamLatency().p50Micros() / 1e6, "0.5");
                    cb.call(current.upstreamLatency().p90Micros() / 1e6, "0.9");
                    cb.call(current.upstreamLatency().p99Micros() / 1e6, "0.99");
                })
                .register(registry);
    }

    /** A counter per class of one of {@link Snapshot#costTotals}' figures, divided by {@code unit}. */
    private void costCounter(String name, String help, ToLongFunction<Cost> figure, double unit) {
        CounterWithCallback.builder().name(name).help(help + ", by class")
                .labelNames("class")
                .callback(cb -> {
                    for (RequestClass cls : RequestClass.values()) {
                        cb.call(figure.applyAsLong(current.costTotals().getOrDefault(cls, Cost.NONE)) / unit,
                                cls.name());
                    }
                })
                .register(registry);
    }

    private List<CrawlerVerification.RangesSource> rangesSources() {
        return current.crawlerVerification() == null ? List.of() : current.crawlerVerification().ranges();
    }

    private ClientTableStats networkTable() {
        return current.networkTable() == null ? new ClientTableStats(0, 0, 0) : current.networkTable();
    }

    private List<AgentRow> agentRows() {
        return current.agents() == null ? List.of() : current.agents().agents();
    }

    private void gauge(String name, String help, Supplier<Number> value) {
        GaugeWithCallback.builder().name(name).help(help)
                .callback(cb -> cb.call(value.get().doubleValue()))
                .register(registry);
    }

    private Map<List<String>, Double> lastMinute() {
        List<SecondCounts> seconds = current.seconds();
        // The newest entry is the second in progress; sum the 60 complete ones before it.
        int end = Math.max(0, seconds.size() - 1);
        Map<List<String>, Double> sums = new TreeMap<>(Comparator.comparing(Object::toString));
        for (SecondCounts second : seconds.subList(Math.max(0, end - 60), end)) {
            byOutcome(second.byClass()).forEach((key, n) -> sums.merge(key, n, Double::sum));
        }
        return sums;
    }

    /** (class, outcome) to count, for counts keyed by class. */
    private static Map<List<String>, Double> byOutcome(Map<RequestClass, ClassCounts> byClass) {
        Map<List<String>, Double> sums = new TreeMap<>(Comparator.comparing(Object::toString));
        for (Map.Entry<RequestClass, ClassCounts> entry : byClass.entrySet()) {
            String cls = entry.getKey().name();
            ClassCounts counts = entry.getValue();
            sums.put(List.of(cls, "ADMITTED"), (double) counts.admitted());
            sums.put(List.of(cls, "DELAYED"), (double) counts.delayed());
            counts.refused().forEach((reason, n) -> sums.put(List.of(cls, reason.name()), (double) n));
        }
        return sums;
    }

    synchronized String scrape() throws IOException {
        current = snapshots.get();
        governor = governorSnapshots.get();
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        writer.write(out, registry.scrape());
        writer.write(out, besideOldNames.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }
}
