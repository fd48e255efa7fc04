package io.sluice.engine.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.telemetry.AsnRow;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.CostShare;
import io.sluice.engine.telemetry.CostSummary;
import io.sluice.engine.telemetry.NetworkFunnel;
import io.sluice.engine.telemetry.NetworkRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What requests cost the upstream, by network (every IPv4 /24 and IPv6 /48), by class and by route, over the last
 * minute ({@link CostWindow}), and by class since start; and the snapshot's view of the networks: their costs joined
 * with the hits, refusals, addresses and user agents of the clients tracked in each and with their browser-check
 * funnels ({@link #funnel}, on the same windows), and "what is costing us".
 * (The clients' and addresses' own costs are kept on their states: see {@link ClientState#recordCost}.)
 *
 * <p>Written once per completed request with a cost, off the decision: a lookup of the request's network in a bounded
 * table (Caffeine, like the client table: a spray of networks evicts the least used, counted and shown) and a few
 * additions under each window's own monitor. Also written once per step of the browser check's funnel, on the
 * decision of a request that meets the check (an interstitial, a request on a pass: one lookup in the same table).
 * Read by {@link #networks} and {@link #summary} on the snapshot's thread.
 */
public final class NetworkCosts {

    /** The network of an IPv4 address: its /24 (the same networks the browser check's budgets are keyed on). */
    public static final int IPV4_NETWORK = 24;
    /** The network of an IPv6 address: its /48. */
    public static final int IPV6_NETWORK = 48;
    /** The most routes counted; past it (a policy edited many times over) the routes start again. */
    static final int MAX_ROUTES = 1_000;
    /** A share rises when its newer half-minute's share is above its older half's by more than this. */
    static final double RISING = 0.05;
    private static final int SHOWN_PER_NETWORK = 5;

    private final Cache<ClientKey, CostWindow> networks;
    private final long capacity;
    private final LongAdder evicted = new LongAdder();
    private final CostWindow[] byClass = new CostWindow[RequestClass.values().length];
    private final ConcurrentHashMap<String, CostWindow> byRoute = new ConcurrentHashMap<>();
    /** The latest time passed in, the network table's ticker (see LocalClientStateStore's). */
    private volatile long tickMillis;

    /**
     * @param capacity the most networks held
     * @param idle     a network whose requests cost nothing for this long is dropped
     */
    public NetworkCosts(long capacity, Duration idle, long nowMillis) {
        this.capacity = capacity;
        this.tickMillis = nowMillis;
        this.networks = Caffeine.newBuilder()
                .maximumSize(capacity)
                .expireAfterAccess(idle)
                .ticker(() -> tickMillis * 1_000_000L)
                .executor(Runnable::run)
                .evictionListener((ClientKey k, CostWindow v, RemovalCause c) -> {
                    evicted.increment();
                    if (v != null) {
                        v.evict();
                    }
                })
                .build();
        for (RequestClass cls : RequestClass.values()) {
            byClass[cls.ordinal()] = new CostWindow(true);
        }
    }

    /** The network {@code address} belongs to, as a key (its /24 or /48). */
    public static ClientKey networkOf(IpAddress address) {
        return ClientKey.ofAddress(address, IPV4_NETWORK, IPV6_NETWORK);
    }

    /** The network as a CIDR ({@code 203.0.113.0/24}). */
    public static String cidr(ClientKey network) {
        return network.ip() + "/" + (network.address().isIpv4() ? IPV4_NETWORK : IPV6_NETWORK);
    }

    /**
     * Counts one request's cost on its network, class and route.
     *
     * @param linked the window of {@code address}'s network its client last counted on, or null: followed while the
     *               table holds it, so a client's requests reach their network without a lookup (a lookup in a
     *               table of 100,000 networks is several cache misses; docs/architecture.md, "Telemetry")
     * @return the window of the network, for the client to link to; null without an address
     */
    public CostWindow record(IpAddress address, CostWindow linked, RequestClass cls, String route, int weight,
                             RequestCost cost, long nowMillis) {
        if (nowMillis > tickMillis) {
            tickMillis = nowMillis;
        }
        CostWindow network = null;
        if (address != null) {
            if (linked != null && !linked.isEvicted()) {
                network = linked;
                if (network.accessReportDue(nowMillis)) {
                    networks.getIfPresent(networkOf(address));
                }
            } else {
                network = networks.get(networkOf(address), key -> new CostWindow());
            }
            network.add(nowMillis, weight, cost);
        }
        byClass[cls.ordinal()].add(nowMillis, weight, cost);
        CostWindow routeWindow = byRoute.get(route);
        if (routeWindow == null) {
            if (byRoute.size() >= MAX_ROUTES) {
                byRoute.clear();
            }
            routeWindow = byRoute.computeIfAbsent(route, r -> new CostWindow());
        }
        routeWindow.add(nowMillis, weight, cost);
        return network;
    }

    /**
     * Counts one step of the browser check's funnel on the network of {@code address} (nothing without one): a lookup
     * in the same bounded table as the costs, so a network's funnel is held, evicted and shown with them.
     */
    public void funnel(IpAddress address, FunnelStep step, long nowMillis) {
        if (address == null) {
            return;
        }
        if (nowMillis > tickMillis) {
            tickMillis = nowMillis;
        }
        networks.get(networkOf(address), key -> new CostWindow()).funnel().add(nowMillis, step);
    }

    /** Each class's costs over the last minute (classes that cost nothing left out). */
    public Map<RequestClass, Cost> lastMinuteByClass(long nowMillis) {
        Map<RequestClass, Cost> result = new EnumMap<>(RequestClass.class);
        for (RequestClass cls : RequestClass.values()) {
            Cost cost = byClass[cls.ordinal()].sample(nowMillis).cost();
            if (cost.requests() > 0) {
                result.put(cls, cost);
            }
        }
        return result;
    }

    /** Each class's costs since start (classes that cost nothing left out). */
    public Map<RequestClass, Cost> totalsByClass() {
        Map<RequestClass, Cost> result = new EnumMap<>(RequestClass.class);
        for (RequestClass cls : RequestClass.values()) {
            Cost cost = byClass[cls.ordinal()].totals();
            if (cost.requests() > 0) {
                result.put(cls, cost);
            }
        }
        return result;
    }

    /** Pressure on the network table. */
    public ClientTableStats stats() {
        networks.cleanUp();
        return new ClientTableStats(networks.estimatedSize(), capacity, evicted.sum());
    }

    /**
     * The networks of the last minute: the {@code limit} costliest, the {@code limit} with the most hits and the
     * {@code limit} with the most refusals (one row each, the costliest first). Hits, refusals, addresses and user
     * agents come from the tracked clients ({@code clients}: a network's hits are its clients' own, so they add up
     * to its addresses'); costs from this table.
     *
     * @param addressOf the address key of a client's address (the policy's aggregate: an IPv6 /64 by default)
     */
    public List<NetworkRow> networks(ClientStateStore<?, ?> clients, Function<IpAddress, ClientKey> addressOf,
                                     int limit, long nowMillis) {
        Map<ClientKey, Tally> tallies = tallies(clients, addressOf, nowMillis);
        Map<ClientKey, CostWindow.CostSample> costs = costs(nowMillis);
        costs.keySet().forEach(network -> tallies.computeIfAbsent(network, n -> new Tally()));
        long total = totalUpstream(nowMillis);
        List<Map.Entry<ClientKey, Tally>> all = new ArrayList<>(tallies.entrySet());
        ToLongFunction<Map.Entry<ClientKey, Tally>> upstream = entry -> costs
                .getOrDefault(entry.getKey(), CostWindow.CostSample.NONE).cost().upstreamMicros();
        Set<Map.Entry<ClientKey, Tally>> chosen = new LinkedHashSet<>();
        chosen.addAll(top(all, upstream, limit));
        chosen.addAll(top(all, entry -> entry.getValue().hits, limit));
        chosen.addAll(top(all, entry -> entry.getValue().refused, limit));
        List<NetworkRow> rows = new ArrayList<>(chosen.size());
        for (Map.Entry<ClientKey, Tally> entry : chosen) {
            Tally tally = entry.getValue();
            Cost cost = costs.getOrDefault(entry.getKey(), CostWindow.CostSample.NONE).cost();
            rows.add(new NetworkRow(cidr(entry.getKey()), tally.addresses.size(), tally.agents.size(), tally.hits,
                    tally.refused, cost, total == 0 ? 0 : (double) cost.upstreamMicros() / total,
                    busiest(tally.addresses, ClientKey::ip), busiest(tally.agents, agent -> agent),
                    funnel(entry.getKey(), nowMillis)));
        }
        rows.sort(Comparator.comparingLong((NetworkRow row) -> row.cost().upstreamMicros()).reversed()
                .thenComparing(Comparator.comparingLong(NetworkRow::hits).reversed())
                .thenComparing(NetworkRow::network));
        return rows;
    }

    /** Each network's tracked clients of the last minute, summed. */
    private static Map<ClientKey, Tally> tallies(ClientStateStore<?, ?> clients,
                                                 Function<IpAddress, ClientKey> addressOf, long nowMillis) {
        Map<ClientKey, Tally> tallies = new HashMap<>();
        clients.tally(nowMillis, HitRing.SECONDS, (key, hits, refused) -> {
            IpAddress address = key.address();
            if (address == null) {
                return;
            }
            tallies.computeIfAbsent(networkOf(address), n -> new Tally()).add(addressOf.apply(address), key, hits,
                    refused);
        });
        return tallies;
    }

    /**
     * The autonomous systems of the last minute, by {@code table} (empty without one): each the sum of its networks'
     * rows, a network counted under the AS of its first address (a /24 split between two systems, rare, goes whole
     * to the first's). The {@code limit} costliest, busiest and most refused, the costliest first, as
     * {@link #networks}. Off the request path: the snapshot's thread looks each network up once.
     */
    public List<AsnRow> autonomousSystems(ClientStateStore<?, ?> clients, Function<IpAddress, ClientKey> addressOf,
                                          AsnTable table, int limit, long nowMillis) {
        if (table.isEmpty()) {
            return List.of();
        }
        Map<ClientKey, Tally> tallies = tallies(clients, addressOf, nowMillis);
        Map<ClientKey, CostWindow.CostSample> costs = costs(nowMillis);
        Map<Long, SystemTally> systems = new HashMap<>();
        tallies.forEach((network, tally) -> {
            long asn = table.lookup(network.address());
            if (asn != AsnTable.NONE) {
                systems.computeIfAbsent(asn, n -> new SystemTally()).add(network, tally);
            }
        });
        costs.forEach((network, sample) -> {
            long asn = table.lookup(network.address());
            if (asn != AsnTable.NONE) {
                systems.computeIfAbsent(asn, n -> new SystemTally()).add(network, sample.cost());
            }
        });
        long total = totalUpstream(nowMillis);
        List<Map.Entry<Long, SystemTally>> all = new ArrayList<>(systems.entrySet());
        Set<Map.Entry<Long, SystemTally>> chosen = new LinkedHashSet<>();
        chosen.addAll(top(all, entry -> entry.getValue().cost.upstreamMicros(), limit));
        chosen.addAll(top(all, entry -> entry.getValue().hits, limit));
        chosen.addAll(top(all, entry -> entry.getValue().refused, limit));
        List<AsnRow> rows = new ArrayList<>(chosen.size());
        for (Map.Entry<Long, SystemTally> entry : chosen) {
            SystemTally tally = entry.getValue();
            rows.add(new AsnRow(entry.getKey(), table.description(entry.getKey()), tally.networks.size(),
                    tally.addresses, tally.agents.size(), tally.hits, tally.refused, tally.cost,
                    total == 0 ? 0 : (double) tally.cost.upstreamMicros() / total,
                    busiest(tally.networks, NetworkCosts::cidr)));
        }
        rows.sort(Comparator.comparingLong((AsnRow row) -> row.cost().upstreamMicros()).reversed()
                .thenComparing(Comparator.comparingLong(AsnRow::hits).reversed())
                .thenComparingLong(AsnRow::asn));
        return rows;
    }

    /** "What is costing us?" over the last minute: the class, network and route of the largest share. */
    public CostSummary summary(long nowMillis) {
        Map<String, CostWindow.CostSample> classes = new HashMap<>();
        for (RequestClass cls : RequestClass.values()) {
            classes.put(cls.name(), byClass[cls.ordinal()].sample(nowMillis));
        }
        CostWindow.CostSample all = classes.values().stream().reduce(CostWindow.CostSample.NONE, NetworkCosts::plus);
        if (all.cost().upstreamMicros() == 0) {
            return CostSummary.NONE;
        }
        Map<String, CostWindow.CostSample> networkShares = new HashMap<>();
        costs(nowMillis).forEach((network, sample) -> networkShares.put(cidr(network), sample));
        Map<String, CostWindow.CostSample> routes = new HashMap<>();
        byRoute.forEach((route, window) -> routes.put(route, window.sample(nowMillis)));
        return new CostSummary(all.cost().upstreamMicros(), leader(classes, all), leader(networkShares, all),
                leader(routes, all));
    }

    private long totalUpstream(long nowMillis) {
        long total = 0;
        for (CostWindow window : byClass) {
            total += window.sample(nowMillis).cost().upstreamMicros();
        }
        return total;
    }

    private Map<ClientKey, CostWindow.CostSample> costs(long nowMillis) {
        if (nowMillis > tickMillis) {
            tickMillis = nowMillis;
        }
        Map<ClientKey, CostWindow.CostSample> costs = new HashMap<>();
        networks.asMap().forEach((network, window) -> {
            CostWindow.CostSample sample = window.sample(nowMillis);
            if (sample.cost().requests() > 0) {
                costs.put(network, sample);
            }
        });
        return costs;
    }

    /** A network's funnel over the last minute, read without touching its recency in the table. */
    private NetworkFunnel funnel(ClientKey network, long nowMillis) {
        CostWindow window = networks.policy().getIfPresentQuietly(network);
        NetworkFunnel funnel = window == null ? null : window.funnelSample(nowMillis);
        return funnel == null ? NetworkFunnel.NONE : funnel;
    }

    private static CostWindow.CostSample plus(CostWindow.CostSample a, CostWindow.CostSample b) {
        return new CostWindow.CostSample(a.cost().plus(b.cost()), a.recentUpstreamMicros() + b.recentUpstreamMicros(),
                a.earlierUpstreamMicros() + b.earlierUpstreamMicros());
    }

    /** The key of the largest share of {@code all}'s upstream time, or null when none has any. */
    static CostShare leader(Map<String, CostWindow.CostSample> samples, CostWindow.CostSample all) {
        Map.Entry<String, CostWindow.CostSample> best = null;
        for (Map.Entry<String, CostWindow.CostSample> entry : samples.entrySet()) {
            long upstream = entry.getValue().cost().upstreamMicros();
            if (upstream > 0 && (best == null || upstream > best.getValue().cost().upstreamMicros()
                    || upstream == best.getValue().cost().upstreamMicros() && entry.getKey().compareTo(best.getKey())
                    < 0)) {
                best = entry;
            }
        }
        if (best == null) {
            return null;
        }
        CostWindow.CostSample of = best.getValue();
        double share = share(of.cost().upstreamMicros(), all.cost().upstreamMicros());
        double recent = share(of.recentUpstreamMicros(), all.recentUpstreamMicros());
        double earlier = share(of.earlierUpstreamMicros(), all.earlierUpstreamMicros());
        return new CostShare(best.getKey(), share, recent, earlier, recent > earlier + RISING);
    }

    private static double share(long part, long whole) {
        return whole == 0 ? 0 : (double) part / whole;
    }

    private static <T> List<T> top(List<T> all, ToLongFunction<T> score, int limit) {
        return all.stream().filter(each -> score.applyAsLong(each) > 0)
                .sorted(Comparator.comparingLong(score).reversed()).limit(limit).toList();
    }

    /** The keys of the most hits, the busiest first, as text (made only for these few). */
    private static <K> List<String> busiest(Map<K, Long> hits, Function<K, String> text) {
        return hits.entrySet().stream()
                .sorted(Map.Entry.<K, Long>comparingByValue().reversed()
                        .thenComparing(entry -> text.apply(entry.getKey())))
                .limit(SHOWN_PER_NETWORK).map(entry -> text.apply(entry.getKey())).toList();
    }

    /** One autonomous system's networks, summed. */
    private static final class SystemTally {
        /** Its networks, by their hits. */
        final Map<ClientKey, Long> networks = new HashMap<>();
        final Set<String> agents = new HashSet<>();
        int addresses;
        long hits;
        long refused;
        Cost cost = Cost.NONE;

        void add(ClientKey network, Tally tally) {
            networks.merge(network, tally.hits, Long::sum);
            agents.addAll(tally.agents.keySet());
            addresses += tally.addresses.size();
            hits += tally.hits;
            refused += tally.refused;
        }

        void add(ClientKey network, Cost more) {
            networks.putIfAbsent(network, 0L);
            cost = cost.plus(more);
        }
    }

    /** One network's tracked clients, summed. */
    private static final class Tally {
        final Map<ClientKey, Long> addresses = new HashMap<>();
        final Map<String, Long> agents = new HashMap<>();
        long hits;
        long refused;

        void add(ClientKey address, ClientKey client, int clientHits, int clientRefused) {
            hits += clientHits;
            refused += clientRefused;
            addresses.merge(address, (long) clientHits, Long::sum);
            agents.merge(client.userAgent(), (long) clientHits, Long::sum);
        }
    }
}
