package io.sluice.engine;

import io.sluice.engine.policy.Category;
import io.sluice.engine.internal.ClientSample;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CostWindow;
import io.sluice.engine.internal.FunnelStep;
import io.sluice.engine.internal.LatencyTracker;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.NetworkCosts;
import io.sluice.engine.internal.OutcomeCounters;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.telemetry.AsnTableStats;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.CrawlerVerification;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.ClusterStatus;
import io.sluice.engine.telemetry.AgentsView;
import io.sluice.engine.telemetry.CrawlerIdentity;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The engine's telemetry: written on the request path only as increments (a counter in a per-second slot, a
 * wait-free latency recorder), read, copied and sorted by {@link #snapshot} on the caller's thread, so the console
 * looking costs requests nothing.
 */
final class EngineTelemetry {

    /** A client refused or delayed this recently is shown as {@link ClientStatus#LIMITED}. */
    static final long LIMITED_SHOWN_MILLIS = 5_000;
    private static final int HISTORY_SECONDS = 300;
    private static final int LATENCY_SECONDS = 60;

    private final OutcomeCounters counters = new OutcomeCounters(HISTORY_SECONDS);
    private final LatencyTracker latency = new LatencyTracker(LATENCY_SECONDS);
    private final EngineConfig config;
    private final UserAgentClassifier classifier;
    private final ClientStateStore<?, ?> clients;
    private final ClientStateStore<?, ?> addresses;
    private final LoadGate load;
    private final AutomaticBans bans;
    /** Costs by network, class and route (the clients' and addresses' are on their states). */
    private final NetworkCosts costs;

    EngineTelemetry(EngineConfig config, UserAgentClassifier classifier, ClientStateStore<?, ?> clients,
                    ClientStateStore<?, ?> addresses, LoadGate load, AutomaticBans bans, long nowMillis) {
        this.config = config;
        // bounded like the client table: as many networks as clients at the most, dropped when idle as clients are
        this.costs = new NetworkCosts(config.maxTrackedClients(), Duration.ofSeconds(config.idleSeconds()), nowMillis);
        this.classifier = classifier;
        this.clients = clients;
        this.addresses = addresses;
        this.load = load;
        this.bans = bans;
    }

    void admitted(RequestClass cls, long now, boolean afterWait) {
        counters.admitted(cls, now, afterWait);
    }

    void refused(RequestClass cls, Reason reason, long now) {
        counters.refused(cls, reason, now);
    }

    void completed(long upstreamLatencyNanos) {
        latency.record(upstreamLatencyNanos);
    }

    /** Counts a request's cost on its network, class and route; returns its network's window (see NetworkCosts). */
    CostWindow costed(RequestClass cls, IpAddress address, CostWindow linkedNetwork, RouteTable.Compiled route,
                      RequestCost cost, long now) {
        return costs.record(address, linkedNetwork, cls, route.label(), route.weight(), cost, now);
    }

    /** Counts a step of the browser check's funnel on the network of {@code address} (see NetworkCosts). */
    void funnel(IpAddress address, FunnelStep step, long now) {
        costs.funnel(address, step, now);
    }

    /** The per-second counts up to {@code now}, oldest first: the snapshot's, without its scan of the clients. */
    List<SecondCounts> seconds(long now) {
        return counters.lastSeconds(now);
    }

    /**
     * Everything the console shows at {@code nowInstant}, under {@code compiled}.
     *
     * @param pendingBans the automatic bans not in a policy yet, read before {@code compiled}
     */
    Snapshot snapshot(Instant nowInstant, CompiledPolicy compiled, List<Ban> pendingBans, DecisionTap shadow,
                      ClusterStatus cluster,
                      BrowserCheckCounts browserCheck, CrawlerVerification crawlerVerification,
                      AgentsView agents, AsnTable asns) {
        long now = nowInstant.toEpochMilli();
        Policy policy = compiled.policy();
        List<ClientRow> rows = new ArrayList<>();
        Policy.PerAddress perAddress = policy.perAddress();
        Map<ClientKey, Integer> busiestPerAddress = new HashMap<>();
        // The addresses are read before their clients. A request pushes its hit on its client, then on its address,
        // and every row is read at the snapshot's second (ClientState.sample): a hit an address row holds is in its
        // client's row too, so an address is never shown ahead of its only client.
        List<ClientSample> addressSamples = addresses.busiest(config.topClients(), now, perAddress.windowSeconds());
        for (ClientSample sample : clients.busiest(config.topClients(), now, policy.hitStack().windowSeconds())) {
            if (notJudgedYet(sample)) {
                continue;
            }
            rows.add(row(sample, compiled, nowInstant, null));
            busiestPerAddress.merge(ClientKey.ofAddress(sample.key().address(), perAddress.ipv4Prefix(),
                    perAddress.ipv6Prefix()), sample.hitsInWindow(), Math::max);
        }
        // An address is shown as its own row when it is more than its busiest client (several user agents, or
        // several addresses of one /64) or was refused as an address; else its row would repeat its client's.
        for (ClientSample sample : addressSamples) {
            if (notJudgedYet(sample)) {
                continue;
            }
            boolean refusedAsAddress = sample.lastLimitedMillis() != Long.MIN_VALUE
                    && now - sample.lastLimitedMillis() < LIMITED_SHOWN_MILLIS;
            if (refusedAsAddress || sample.hitsInWindow() > busiestPerAddress.getOrDefault(sample.key(), 0)) {
                rows.add(row(sample, compiled, nowInstant, perAddress));
            }
        }
        rows.sort(Comparator.comparingInt(ClientRow::hitsInWindow).reversed());
        if (rows.size() > config.topClients()) {
            rows.subList(config.topClients(), rows.size()).clear();
        }
        List<ClientRow> costliest = new ArrayList<>();
        for (ClientSample sample : clients.costliest(config.topClients(), now, policy.hitStack().windowSeconds())) {
            if (!notJudgedYet(sample)) {
                costliest.add(row(sample, compiled, nowInstant, null));
            }
        }
        Instant banNow = Instant.ofEpochMilli(bans.banMillis(now));
        List<Ban> inForce = new ArrayList<>(policy.bans().stream().filter(b -> b.activeAt(banNow)).toList());
        // read before the policy, so a ban installed meanwhile is in both: listed once
        Set<String> listed = new HashSet<>();
        inForce.forEach(ban -> listed.add(ban.id()));
        for (Ban pending : pendingBans) {
            if (listed.add(pending.id())) {
                inForce.add(pending);
            }
        }
        Function<IpAddress, ClientKey> addressOf = address -> ClientKey.ofAddress(address, perAddress.ipv4Prefix(),
                perAddress.ipv6Prefix());
        return new Snapshot(nowInstant, policy.version(), policy.pause(), counters.lastSeconds(now),
                new LoadState(load.inFlight(), load.waiting(), policy.load().maxActive(), policy.load().maxWaiting()),
                latency.summary(now), List.copyOf(rows),
                new ClientTableStats(clients.tracked(), clients.capacity(), clients.evicted()), List.copyOf(inForce),
                counters.totals(),
                shadow == null ? null : shadow.summary(now), cluster, List.copyOf(costliest),
                costs.networks(clients, addressOf, config.topClients(), now),
                costs.stats(), costs.lastMinuteByClass(now), costs.totalsByClass(), costs.summary(now), browserCheck,
                crawlerVerification, agents,
                costs.autonomousSystems(clients, addressOf, asns, config.topClients(), now),
                asns.isEmpty() ? null : new AsnTableStats(asns.source(), asns.ipv4Ranges(), asns.ipv6Ranges(),
                        asns.systems()));
    }

    /**
     * A state made for a request a moment ago whose first hit is not pushed yet (a snapshot can fall between the
     * two, seen in a console test under load): it has no class and nothing to show, so it is not a row.
     */
    private static boolean notJudgedYet(ClientSample sample) {
        return sample.requestClass() == null;
    }

    /** @param perAddress the aggregate's settings for an address row, null for a client's */
    private ClientRow row(ClientSample sample, CompiledPolicy compiled, Instant now, Policy.PerAddress perAddress) {
        ClientKey key = sample.key();
        ClientStatus status;
        if (bans.banned(compiled, key.address(), key, now.toEpochMilli()) != null) {
            status = ClientStatus.BANNED;
        } else if (sample.allowListed()) {
            status = ClientStatus.ALLOWED;
        } else if (sample.lastLimitedMillis() != Long.MIN_VALUE
                && now.toEpochMilli() - sample.lastLimitedMillis() < LIMITED_SHOWN_MILLIS) {
            status = ClientStatus.LIMITED;
        } else {
            status = ClientStatus.OK;
        }
        boolean isAddress = perAddress != null;
        return new ClientRow(isAddress ? AutomaticBans.addressBanValue(key, perAddress) : key.ip(), key.userAgent(),
                sample.requestClass(), isAddress ? null : sample.crawlerName(), sample.hitsInWindow(),
                sample.inFlight(), sample.hitsPerSecond(), sample.refusedPerSecond(), status,
                Instant.ofEpochMilli(sample.lastSeenMillis()), isAddress,
                isAddress ? null : crawlerIdentity(sample, compiled.policy()), sample.cost().cost(),
                isAddress ? null : category(sample, compiled.policy()));
    }

    /** The category of a row whose user agent names a list entry (a cache hit: only for the heatmap's rows). */
    private Category category(ClientSample sample, Policy policy) {
        if (sample.crawlerName() == null) {
            return null;
        }
        String userAgent = sample.key().userAgent();
        return Category.of(sample.crawlerName(),
                classifier.classify(userAgent.isEmpty() ? null : userAgent, policy.classification()).tags());
    }

    /**
     * Verified or claimed, from the class the client's last request was given (the prelude's verification): a
     * {@code CRAWLER} passed verification unless the policy turned it off; a {@code BOT} whose user agent the list
     * makes a crawler did not. Classifying again is a cache hit, and only for the heatmap's rows.
     */
    private CrawlerIdentity crawlerIdentity(ClientSample sample, Policy policy) {
        if (sample.crawlerName() == null) {
            return null;
        }
        if (sample.requestClass() == RequestClass.CRAWLER) {
            return policy.crawlers().verifySearchEngines() ? CrawlerIdentity.VERIFIED : CrawlerIdentity.CLAIMED;
        }
        String userAgent = sample.key().userAgent();
        return classifier.classify(userAgent.isEmpty() ? null : userAgent, policy.classification()).requestClass()
                == RequestClass.CRAWLER ? CrawlerIdentity.CLAIMED : null;
    }
}
