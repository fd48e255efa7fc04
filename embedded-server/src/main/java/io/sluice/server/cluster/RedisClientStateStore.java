package io.sluice.server.cluster;

import io.lettuce.core.ScriptOutputType;
import io.sluice.engine.Reason;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

/**
 * The cluster's per-client rules (crawler spacing, hit stacks, per-client and per-address concurrency) in Redis,
 * exact across nodes: each request is judged by {@code client-admit.lua} in Redis, in one call sent on the
 * node's request link (deadline 50 ms) and answered asynchronously, so no thread waits on Redis; under load the
 * requests asked while a call is in Redis go together in the next ({@link AdmissionBatches}). The design, the
 * keys and the numbers are in docs/architecture-cluster.md ("The shared per-client store").
 *
 * <ul>
 *   <li><b>Refused until a time.</b> A refusal with a known end (spacing, the hit stacks) is remembered until that
 *       end, under the policy version it was judged by: meanwhile the client (its address, the crawler) is refused
 *       here without a round trip, and the hits it keeps pushing are added up and flushed every heartbeat in one
 *       call ({@code client-flush.lua}), so the shared stack stays exact to within a heartbeat.</li>
 *   <li><b>Leases.</b> An admitted request holds a lease in its client's and address's sets, which expires after
 *       {@code leaseTime} (the upstream timeout and a margin): a node killed with requests running leaks their
 *       slots for at most that long. This node renews the leases of its long requests every third of it, all in
 *       one call; a request that ends gives its slots back with the next admission call ({@link AdmissionBatches},
 *       at once in a call of its own when none is in Redis; a crawler's turn given back goes at once, alone); a
 *       release that fails (Redis away) is retried at the next heartbeat.</li>
 *   <li><b>Unavailable.</b> Before it is attached to its {@link ClusterNode}, and whenever the node's connection
 *       monitor says {@code DEGRADED}, {@link #available()} is false and the engine decides alone at once; a call
 *       that fails or misses the deadline makes the monitor degraded at once. Nothing counted meanwhile is replayed
 *       into Redis.</li>
 * </ul>
 */
public final class RedisClientStateStore implements SharedClientStore<RedisLease>, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisClientStateStore.class.getName());
    private static final LuaScript ADMIT =
            LuaScript.loadFunction("client-admit", "locals", "hit-stacks", "lease-names", "address-stacks");
    private static final LuaScript RELEASE = LuaScript.loadFunction("client-release", "locals", "lease-names");
    private static final LuaScript LEASES = LuaScript.loadFunction("client-leases", "locals", "lease-names");
    private static final LuaScript FLUSH =
            LuaScript.loadFunction("client-flush", "locals", "hit-stacks", "lease-names", "address-stacks");
    /** Verdict codes of client-admit.lua, in its order. */
    private static final Reason[] VERDICTS = {null, Reason.CRAWLER_SPACING, Reason.CRAWLERS_BUSY, Reason.HIT_STACK,
        Reason.ROUTE_LIMIT, Reason.ADDRESS_HIT_STACK, Reason.CLIENT_CONCURRENCY, Reason.ADDRESS_CONCURRENCY,
        Reason.NETWORK_BUDGET};
    /**
     * client-admit.lua's marks on a verdict: the request's network was over its budget; this request took it (or its
     * pass) over; its pass was over its pace. The low bits are the verdict.
     */
    private static final int NETWORK_OVER = 16;
    private static final int TOOK_OVER = 32;
    private static final int PASS_OVER = 64;
    private static final int VERDICT = 15;
    /** The most refusals remembered at once; past it a refused client is asked about again (memory stays bounded). */
    static final int MAX_REFUSALS = 100_000;
    /** The most failed releases kept for a retry; past it they are left to expire with their leases. */
    private static final int MAX_RETRIED = 100_000;
    /**
     * Leases renewed or forgotten, or stacks flushed, per call, so one call stays short: Redis serves nothing else
     * while it runs, and a flush of 500 stacks holds it about 3 ms, one of 5,000 about 44 (docs/BENCHMARKS.md,
     * issue 29); a flood of refused addresses leaves up to two stacks each to flush in a heartbeat.
     */
    private static final int BATCH = 500;

    /** A refusal remembered until {@code untilMillis} (the engine's clock), for the policy version it was judged by. */
    private record Refused(Reason reason, long judgedAt, long untilMillis, long policyVersion, int hits,
                           long untilReset) {
    }

    private final String prefix;
    /** The all-crawlers key (crawler spacing's gap between any two crawlers' requests), global. */
    private final String anyCrawler;
    private final long leaseMillis;
    /** On a Redis Cluster: a crawler's keys go to the crawlers' slot ({@link #tagged}). */
    private volatile boolean crawlersApart;
    private final String incarnation = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFF_FFFFL);
    private final AtomicLong sequence = new AtomicLong();
    private final ConcurrentHashMap<String, Refused> refused = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Unflushed, Integer> unflushed = new ConcurrentHashMap<>();
    /** The latest engine time an ask carried: remembered refusals are swept by the engine's clock, not this one's. */
    private volatile long engineNow;
    private final ConcurrentHashMap<String, RedisLease> live = new ConcurrentHashMap<>();
    private final Queue<RedisLease> toForget = new ConcurrentLinkedQueue<>();
    private final AtomicInteger toForgetSize = new AtomicInteger();
    private final AtomicLong commands = new AtomicLong();
    /** Heartbeats that flushed hits counted without asking (each one call per master at most). */
    private final AtomicLong flushes = new AtomicLong();
    /** For tests: a counter each request thread adds to without contending for one field. */
    private final LongAdder asked = new LongAdder();
    /**
     * The sets of limits of recent asks ({@link #limitsOf}), read and written without a lock: an entry is immutable
     * (its fields final), and two threads that miss together make the same set twice.
     */
    private final KnownLimits[] knownLimits = new KnownLimits[64];
    private volatile Attachment attachment;

    /**
     * What the store uses of its node: set once by {@link ClusterNode#shareClientState}.
     *
     * @param leaseIds the start of every lease id this store makes: the node's name and this store's incarnation
     */
    private record Attachment(String leaseIds, RedisLink link, AdmissionBatches admissions, ConnectionMonitor monitor,
                              IntSupplier nodes, List<ScheduledFuture<?>> schedules) {
    }

    /**
     * @param settings  the cluster's key prefix and heartbeat
     * @param leaseTime how long a request's slots outlive a node that died with it running: the upstream timeout
     *                  and a margin (a request renewed in time is never cut short)
     */
    public RedisClientStateStore(ClusterSettings settings, Duration leaseTime) {
        if (leaseTime.toMillis() < 300) {
            throw new IllegalArgumentException("a lease lasts at least 300 ms, not " + leaseTime);
        }
        this.prefix = settings.keyPrefix();
        this.anyCrawler = prefix + "{crawlers}:any";
        this.leaseMillis = leaseTime.toMillis();
    }

    /** Starts using {@code link} (the node's request link) and the node's view of Redis and of the fleet. */
    void attach(String node, RedisLink link, ConnectionMonitor monitor, IntSupplier nodes, Duration heartbeat,
                ScheduledExecutorService scheduler) {
        long renewEvery = Math.max(100, leaseMillis / 3);
        List<ScheduledFuture<?>> schedules = List.of(
                scheduler.scheduleWithFixedDelay(this::flush, heartbeat.toMillis(), heartbeat.toMillis(),
                        TimeUnit.MILLISECONDS),
                scheduler.scheduleWithFixedDelay(this::renew, renewEvery, renewEvery, TimeUnit.MILLISECONDS));
        crawlersApart = link.cluster();
        attachment = new Attachment(node + ":" + incarnation + ":", link,
                new AdmissionBatches(ADMIT, link, commands, this::forgetLater), monitor, nodes, schedules);
        // Each time Redis answers again (at start, after a restart that emptied it), its scripts are cached ahead of
        // the requests: a release retried after NOSCRIPT would otherwise run after the admissions sent behind it.
        monitor.onChange(change -> {
            if (change.state() == ClusterState.HEALTHY && attachment != null) {
                for (LuaScript script : List.of(ADMIT, RELEASE, LEASES, FLUSH)) {
                    script.preload(link);
                }
            }
        });
        if (monitor.state() == ClusterState.HEALTHY) {
            for (LuaScript script : List.of(ADMIT, RELEASE, LEASES, FLUSH)) {
                script.preload(link);
            }
        }
    }

    /** The node closed: asked no more (the engine decides alone from now on). */
    void detach() {
        Attachment was = attachment;
        attachment = null;
        if (was != null) {
            was.schedules().forEach(schedule -> schedule.cancel(false));
        }
    }

    @Override
    public boolean available() {
        Attachment on = attachment;
        return on != null && on.monitor().state() == ClusterState.HEALTHY;
    }

    @Override
    public int nodes() {
        Attachment on = attachment;
        return on == null ? 1 : Math.max(1, on.nodes().getAsInt());
    }

    /** Commands this store sent to Redis since it started (the admissions, releases and batched calls). */
    public long commandsSent() {
        return commands.get();
    }

    /** For tests: the heartbeats that flushed hits counted without asking Redis. */
    long flushesSent() {
        return flushes.get();
    }

    // ---------------------------------------------------------------- keys (docs/architecture-cluster.md)

    /**
     * The start of an ask's keys, with their hash tag: the address aggregate's, so a client's and its address's keys
     * share a slot, and one script judges them together on a Redis Cluster too, spread over the shards by address.
     *
     * <p>Crawler spacing also needs the all-crawlers key, which is global: on a Redis Cluster a crawler's keys (its
     * hit stacks and leases, its address aggregate's) are tagged {@code {crawlers}} instead, the slot of the crawler
     * keys, so its admission stays one atomic script. The price: on a Redis Cluster an address's crawler requests and
     * its other requests count in two aggregates (a verified crawler's addresses are the search engine's own; a
     * claimed one is held by the all-crawlers gap as a whole). The crawlers' slot takes only crawler requests, which
     * that gap paces. On one Redis nothing moves: every key keeps its address's tag, as before.
     */
    private String tagged(Ask ask) {
        if (crawlersApart) {
            if (ask.crawler() != null) {
                return prefix + "{crawlers}:" + ask.address().ip() + ":";
            }
            if (ask.network() != null) {
                return prefix + "{" + networkTag(ask.address(), ask.network()) + "}:" + ask.address().ip() + ":";
            }
        }
        return prefix + "{" + ask.address().ip() + "}:";
    }

    /*
     * A browser claim's network (the browser check's budgets) is counted in the same call as its client's rules, so on
     * a Redis Cluster a client's keys, its address aggregate's too, are tagged with its network (with its address
     * aggregate, if an operator made that the wider): the slot of the network's stacks. Every client's, not only a
     * browser claim's, so that an address's browser claims and its other requests still count in one aggregate
     * (changing the user agent buys no fresh allowance). The shards share the load by network, not by address. On one
     * Redis nothing moves.
     */

    /** The hash tag of a client's keys on a Redis Cluster: the wider of its address aggregate and network. */
    private static String networkTag(ClientKey address, ClientKey network) {
        ClientKey wider = (address.prefixBits() & 0xFF) < (network.prefixBits() & 0xFF) ? address : network;
        return wider.ip() + "/" + (wider.prefixBits() & 0xFF);
    }

    /**
     * A network's hit stack of browser claims without a pass, or of requests on a pass ({@code onPass}): in the slot
     * of its browser claims' keys ({@link #tagged}).
     */
    private String networkHits(ClientKey address, ClientKey network, boolean onPass) {
        return prefix + "{" + networkTag(address, network) + "}:" + STACKS + (onPass ? "np:" : "n:") + network.ip()
                + "/" + (network.prefixBits() & 0xFF);
    }

    /**
     * A pass's own hit stack (its id: base64url): on a Redis Cluster in the slot of its network, which its requests
     * all come from (a pass is good only in the network it was made for), elsewhere under its id alone.
     */
    private String passHits(ClientKey address, ClientKey network, String pass) {
        if (crawlersApart) {
            return prefix + "{" + networkTag(address, network) + "}:" + STACKS + "q:" + pass;
        }
        return prefix + "{" + pass + "}:" + STACKS + "q";
    }

    /**
     * The letter of the hit stacks' keys (a client's, its address's, a route's). It changes whenever hit-stacks.lua
     * lays a stack out differently ("m" since the header keeps two seconds for a client's admission), so during an
     * upgrade old and new nodes never read each other's stacks wrongly (docs/manual/cluster.md, "Upgrading").
     */
    private static final String STACKS = "m";

    /** The client's own hit stack. */
    private static String clientHits(String tag, String clientPart) {
        return tag + STACKS + ":" + clientPart;
    }

    /** This crawler's last service (its list entry): in the crawlers' slot. */
    private String crawlerKey(String crawler) {
        return prefix + "{crawlers}:crawler:" + crawler;
    }

    /** A client's part of a key: its address and a 64-bit hash of its user agent (FNV-1a). */
    private static String clientPart(ClientKey client) {
        String agent = client.userAgent();
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < agent.length(); i++) {
            hash ^= agent.charAt(i);
            hash *= 0x100000001b3L;
        }
        return client.ip() + ":" + Long.toHexString(hash);
    }

    // ---------------------------------------------------------------- admission

    @Override
    public CompletableFuture<Verdict<RedisLease>> admit(Ask ask) {
        Attachment on = attachment;
        if (on == null) {
            return CompletableFuture.failedFuture(new RedisUnavailableException("not attached to a cluster node"));
        }
        String tag = tagged(ask);
        String client = clientPart(ask.client());
        String hits = clientHits(tag, client);
        String addressHits = tag + STACKS;
        String routeHits = ask.route() == null ? hits : tag + STACKS + "r:" + client + ":" + ask.route();
        String crawler = ask.crawler() == null ? null : crawlerKey(ask.crawler());
        NetworkBudget budget = ask.networkBudget();
        String networkHits = budget == null ? null : networkHits(ask.address(), ask.network(), budget.onPass());
        String passHits = budget == null || budget.pass() == null ? null
                : passHits(ask.address(), ask.network(), budget.pass());
        if (engineNow != ask.nowMillis()) {
            engineNow = ask.nowMillis(); // written once a millisecond, not by every request
        }
        Verdict<RedisLease> known = knownRefusal(ask, hits, routeHits, addressHits, crawler, anyCrawler, networkHits);
        if (known != null) {
            return CompletableFuture.completedFuture(known);
        }
        String id = on.leaseIds() + sequence.incrementAndGet();
        String clientLeases = tag + "l:" + client;
        String addressLeases = tag + "l";
        String[] keys = new String[4 + (ask.routeLimits() != null ? 1 : 0) + (crawler != null ? 2 : 0)
                + (networkHits != null ? 1 : 0) + (passHits != null ? 1 : 0)];
        keys[0] = hits;
        keys[1] = addressHits;
        keys[2] = clientLeases;
        keys[3] = addressLeases;
        int more = 4;
        if (ask.routeLimits() != null) {
            keys[more++] = routeHits;
        }
        if (crawler != null) {
            keys[more++] = crawler;
            keys[more++] = anyCrawler;
        }
        if (networkHits != null) {
            keys[more++] = networkHits;
        }
        if (passHits != null) {
            keys[more] = passHits;
        }
        asked.increment();
        long sentNanos = System.nanoTime();
        CompletableFuture<List<Object>> reply = on.admissions().admit(keys,
                limitsOf(ask, on.admissions()), ask.weight(), id, crawler == null ? -1 : ask.perCrawlerMillis());
        return reply.handle((answer, failure) -> {
            if (failure != null) {
                on.monitor().failed(ConnectionMonitor.describe(failure));
                // Redis may still run the script after the deadline: the lease it would take is forgotten later
                forgetLater(new RedisLease(clientLeases, addressLeases, id, null, anyCrawler, 0, -1, -1, sentNanos));
                throw new CompletionException(failure);
            }
            return verdict(ask, answer, hits, routeHits, addressHits, crawler, anyCrawler, networkHits,
                    new RedisLease(clientLeases, addressLeases, id, crawler, anyCrawler, 0, -1, -1, sentNanos));
        });
    }

    /**
     * The set of limits {@code ask} is judged by, found by the identity of the policy's parts it carries (the same
     * objects for every ask until the policy changes): made and hashed once per policy, not per request, which cost
     * 1.6% of a cluster node's CPU samples (docs/BENCHMARKS.md, issue 29). An ask whose parts are not the cached
     * entry's replaces it.
     */
    private AdmissionBatches.LimitSet limitsOf(Ask ask, AdmissionBatches admissions) {
        NetworkBudget budget = ask.networkBudget();
        Policy.HitStack network = budget == null ? null : budget.limits();
        Policy.HitStack pace = budget == null || budget.pass() == null ? null : budget.perPass();
        boolean decisive = budget != null && budget.decisive();
        int slot = (31 * (31 * System.identityHashCode(ask.clientLimits()) + System.identityHashCode(ask.routeLimits()))
                + System.identityHashCode(network) + System.identityHashCode(pace) + (decisive ? 1 : 0))
                & (knownLimits.length - 1);
        KnownLimits known = knownLimits[slot];
        if (known == null || !known.judges(ask, network, pace, decisive)) {
            Policy.HitStack route = ask.routeLimits();
            AdmissionBatches.Limits limits = new AdmissionBatches.Limits(ask.clientLimits().windowSeconds(),
                    ask.clientLimits().maxHits(), route == null ? 0 : route.windowSeconds(),
                    route == null ? 0 : route.maxHits(), ask.addressLimits().windowSeconds(),
                    ask.addressLimits().maxHits(), ask.maxConcurrent(), ask.addressMaxConcurrent(), leaseMillis,
                    ask.allCrawlersMillis(), network == null ? 0 : network.windowSeconds(),
                    network == null ? 0 : network.maxHits(), decisive, pace == null ? 0 : pace.windowSeconds(),
                    pace == null ? 0 : pace.maxHits());
            known = new KnownLimits(ask.clientLimits(), route, ask.addressLimits(), ask.maxConcurrent(),
                    ask.addressMaxConcurrent(), ask.allCrawlersMillis(), network, pace, decisive,
                    admissions.limitSet(limits));
            knownLimits[slot] = known;
        }
        return known.set();
    }

    /** A set of limits, and the parts of an ask it was made from. */
    private record KnownLimits(Policy.HitStack client, Policy.HitStack route, Policy.HitStack address,
                               int maxConcurrent, int addressMaxConcurrent, long allCrawlersMillis,
                               Policy.HitStack network, Policy.HitStack pace, boolean networkDecisive,
                               AdmissionBatches.LimitSet set) {
        boolean judges(Ask ask, Policy.HitStack askedNetwork, Policy.HitStack askedPace, boolean decisive) {
            return ask.clientLimits() == client && ask.routeLimits() == route && ask.addressLimits() == address
                    && ask.maxConcurrent() == maxConcurrent && ask.addressMaxConcurrent() == addressMaxConcurrent
                    && ask.allCrawlersMillis() == allCrawlersMillis && askedNetwork == network && askedPace == pace
                    && decisive == networkDecisive;
        }
    }

    private Verdict<RedisLease> verdict(Ask ask, List<Object> answer, String hits, String routeHits,
                                        String addressHits, String crawler, String anyCrawler, String networkHits,
                                        RedisLease asked) {
        int code = (int) (long) (Long) answer.get(0);
        Reason refusal = VERDICTS[code & VERDICT];
        boolean networkOver = (code & NETWORK_OVER) != 0;
        boolean passOver = (code & PASS_OVER) != 0;
        boolean tookOver = (code & TOOK_OVER) != 0;
        long retry = (Long) answer.get(1);
        int inWindow = (int) (long) (Long) answer.get(2);
        long untilReset = (Long) answer.get(3);
        if (refusal == null) {
            RedisLease lease = crawler == null ? asked
                    : new RedisLease(asked.clientLeases(), asked.addressLeases(), asked.id(), crawler, anyCrawler,
                            (Long) answer.get(4), (Long) answer.get(5), (Long) answer.get(6), asked.takenNanos());
            live.put(lease.id(), lease);
            return new Verdict<>(null, 0, inWindow, untilReset, lease, networkOver || passOver, tookOver, passOver);
        }
        String until = switch (refusal) {
            case CRAWLER_SPACING -> crawler;
            case CRAWLERS_BUSY -> anyCrawler;
            case HIT_STACK -> hits;
            case ROUTE_LIMIT -> routeHits;
            case ADDRESS_HIT_STACK -> addressHits;
            case NETWORK_BUDGET -> networkOver ? networkHits : null; // a pass over its pace: that pass alone
            default -> null; // concurrency: when a slot frees is not known
        };
        if (until != null && retry > 0 && refused.size() < MAX_REFUSALS) {
            // ask.nowMillis() is before Redis judged: the end remembered is never later than the real one
            refused.put(until, new Refused(refusal, ask.nowMillis(), ask.nowMillis() + retry, ask.policyVersion(),
                    inWindow, untilReset));
        }
        return new Verdict<>(refusal, retry, inWindow, untilReset, null, networkOver || passOver, tookOver, passOver);
    }

    /**
     * A refusal this node already knows about, in the rules' order, or null. Its hits are counted for the next
     * flush, so the shared stacks see them.
     */
    private Verdict<RedisLease> knownRefusal(Ask ask, String hits, String routeHits, String addressHits,
                                             String crawler, String anyCrawler, String networkHits) {
        if (refused.isEmpty()) {
            return null;
        }
        if (networkHits != null && ask.networkBudget().decisive()) {
            // the network first, as client-admit.lua judges it: over its budget, nothing of the client's counts
            Refused network = valid(networkHits, ask);
            if (network != null) {
                if (ask.weight() > 0) {
                    count(networkHits, ask.weight());
                }
                return new Verdict<>(Reason.NETWORK_BUDGET, network.untilMillis() - ask.nowMillis(), 0, 0, null,
                        true, false, false);
            }
        }
        Refused known = null;
        if (crawler != null) {
            known = valid(crawler, ask);
            if (known == null) {
                known = valid(anyCrawler, ask);
            }
        }
        if (known == null) {
            known = valid(hits, ask);
        }
        if (known == null && ask.route() != null) {
            known = valid(routeHits, ask);
        }
        if (known == null) {
            known = valid(addressHits, ask);
        }
        if (known == null) {
            return null;
        }
        if (ask.weight() > 0) {
            count(hits, ask.weight());
            count(new Unflushed(addressHits, hits), ask.weight());
            if (networkHits != null) {
                count(networkHits, ask.weight()); // as if asked: pushed before the client's rules, whatever they say
            }
        }
        if (ask.route() != null) {
            count(routeHits, Math.max(1, ask.weight()));
        }
        return new Verdict<>(known.reason(), known.untilMillis() - ask.nowMillis(), known.hits(),
                Math.max(0, known.untilReset() - (ask.nowMillis() - known.judgedAt())), null);
    }

    private Refused valid(String key, Ask ask) {
        Refused known = refused.get(key);
        if (known == null) {
            return null;
        }
        if (ask.nowMillis() >= known.untilMillis() || ask.policyVersion() != known.policyVersion()) {
            refused.remove(key, known);
            return null;
        }
        return known;
    }

    /** Added to the client's own shared stack with the next flush, as the refused hits this node knows of are. */
    @Override
    public void countExempt(Ask ask) {
        if (ask.weight() > 0) {
            count(clientHits(tagged(ask), clientPart(ask.client())), ask.weight());
        }
    }

    /** Added to the network's shared stack with the next flush, as the refused hits this node knows of are. */
    @Override
    public void countNetwork(ClientKey address, ClientKey network, boolean onPass, int weight) {
        if (weight > 0) {
            count(networkHits(address, network, onPass), weight);
        }
    }

    private void count(String hitStack, int weight) {
        count(new Unflushed(hitStack, ""), weight);
    }

    private void count(Unflushed stack, int weight) {
        unflushed.merge(stack, weight, Integer::sum);
    }

    /**
     * A stack hits are waiting to be added to: for an address's, with the stack of the client they came from, since
     * the address's only client answers for it in Redis (address-stacks.lua) and has them already; "" for any other.
     */
    private record Unflushed(String stack, String from) {
    }

    // ---------------------------------------------------------------- release, renewal, flush

    @Override
    public void release(RedisLease lease, boolean served) {
        if (lease == null || live.remove(lease.id()) == null) {
            return; // given back already
        }
        Attachment on = attachment;
        if (on == null) {
            return; // the node is gone: the lease expires
        }
        boolean giveTurnBack = !served && lease.crawler() != null;
        if (!giveTurnBack) {
            on.admissions().release(lease); // only slots to free: with the next admission call
            return;
        }
        // a refusal this node remembers for the turn given back ended with it: the next crawler asks Redis
        refused.remove(lease.crawler());
        refused.remove(lease.anyCrawler());
        commands.incrementAndGet();
        RELEASE.<Long>run(on.link(), ScriptOutputType.INTEGER,
                new String[] {lease.clientLeases(), lease.addressLeases(),
                    lease.crawler() == null ? lease.clientLeases() : lease.crawler(),
                    lease.crawler() == null ? lease.clientLeases() : lease.anyCrawler()},
                lease.id(), giveTurnBack ? "1" : "0", Long.toString(lease.servedAt()), Long.toString(lease.previous()),
                Long.toString(lease.previousAny()))
                .whenComplete((done, failure) -> {
                    if (failure != null) {
                        forgetLater(lease); // its crawler's turn is not given back: it was one gap, at most
                    }
                });
    }

    /**
     * For tests: the requests sent to Redis to be judged. Whether a decision is pending says less: Redis may answer
     * before the engine returns it, and then it is returned decided.
     */
    long admissionsAsked() {
        return asked.sum();
    }

    /** For tests: a release is waiting or in a call not answered yet (once false, every release so far is done). */
    boolean releasesPending() {
        Attachment on = attachment;
        return on != null && on.admissions().releasesPending();
    }

    /** Gives {@code batch}'s slots back in one call; what fails is retried at the next heartbeat. */
    private void forgetNow(Attachment on, List<RedisLease> batch) {
        if (on == null) {
            return; // the node is gone: the leases expire
        }
        try {
            leases(on, "forget", batch).whenComplete((done, failure) -> {
                if (failure != null) {
                    batch.forEach(this::forgetLater); // retried at the next heartbeat
                }
            });
        } catch (RuntimeException e) {
            batch.forEach(this::forgetLater);
        }
    }

    private void forgetLater(RedisLease lease) {
        if (toForgetSize.incrementAndGet() <= MAX_RETRIED) {
            toForget.add(lease);
        } else {
            toForgetSize.decrementAndGet();
        }
    }

    /** Every heartbeat: the hits counted without asking, the releases that failed, the refusals that ended. */
    private void flush() {
        try {
            Attachment on = attachment;
            if (on == null) {
                return;
            }
            long now = engineNow;
            refused.values().removeIf(known -> known.untilMillis() <= now);
            if (!unflushed.isEmpty()) {
                List<Map.Entry<Unflushed, Integer>> hits = new ArrayList<>();
                for (Unflushed key : List.copyOf(unflushed.keySet())) {
                    Integer weight = unflushed.remove(key);
                    if (weight != null && weight > 0) {
                        hits.add(Map.entry(key, weight));
                    }
                }
                if (!hits.isEmpty() && on.monitor().state() == ClusterState.HEALTHY) {
                    flushes.incrementAndGet();
                    for (List<Map.Entry<Unflushed, Integer>> shard : on.link().byShard(hits,
                            hit -> hit.getKey().stack())) {
                        for (int from = 0; from < shard.size(); from += BATCH) {
                            flushHits(on, shard.subList(from, Math.min(shard.size(), from + BATCH)));
                        }
                    }
                }
            }
            if (!toForget.isEmpty() && on.monitor().state() == ClusterState.HEALTHY) {
                List<RedisLease> batch = new ArrayList<>();
                RedisLease lease;
                while (batch.size() < BATCH && (lease = toForget.poll()) != null) {
                    toForgetSize.decrementAndGet();
                    batch.add(lease);
                }
                forgetNow(on, batch);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cluster: client store upkeep failed", e);
        }
    }

    /**
     * One call of client-flush.lua for {@code hits}, whose stacks one master serves (on a Redis Cluster they may span
     * its slots: {@link LuaScript#runOnMaster}); a stack whose slot moved since is answered, and sent again in a call
     * of its slot. Lost if Redis fails now: an under-count of one heartbeat's refused hits, never a double count.
     */
    private void flushHits(Attachment on, List<Map.Entry<Unflushed, Integer>> hits) {
        commands.incrementAndGet();
        FLUSH.<List<Object>>runOnMaster(on.link(), ScriptOutputType.MULTI,
                        hits.stream().map(hit -> hit.getKey().stack()).toList(),
                        hits.stream().flatMap(hit -> Stream.of(Integer.toString(hit.getValue()), hit.getKey().from()))
                                .toList())
                .thenAccept(notHere -> {
                    List<Map.Entry<Unflushed, Integer>> moved = new ArrayList<>();
                    for (Object index : notHere) {
                        moved.add(hits.get((int) (long) (Long) index - 1));
                    }
                    for (List<Map.Entry<Unflushed, Integer>> slot : on.link().bySlot(moved,
                            hit -> hit.getKey().stack())) {
                        flushHits(on, slot);
                    }
                });
    }

    /** Every third of the lease time: the leases of requests running longer than that, renewed. */
    private void renew() {
        try {
            Attachment on = attachment;
            if (on == null || live.isEmpty()) {
                return;
            }
            long olderThan = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(leaseMillis / 3);
            List<RedisLease> batch = new ArrayList<>();
            for (RedisLease lease : live.values()) {
                if (lease.takenNanos() - olderThan < 0) {
                    batch.add(lease);
                    if (batch.size() == BATCH) {
                        leases(on, "renew", batch);
                        batch = new ArrayList<>();
                    }
                }
            }
            if (!batch.isEmpty()) {
                leases(on, "renew", batch);
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cluster: lease renewal failed", e);
        }
    }

    /** Renews or forgets {@code all}: one call per slot on a Redis Cluster, one call on one Redis. */
    private CompletableFuture<Void> leases(Attachment on, String what, List<RedisLease> all) {
        return CompletableFuture.allOf(on.link().bySlot(all, RedisLease::clientLeases).stream()
                .map(batch -> leasesOfOneSlot(on, what, batch)).toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Long> leasesOfOneSlot(Attachment on, String what, List<RedisLease> batch) {
        String[] keys = new String[batch.size() * 2];
        String[] args = new String[batch.size() + 2];
        args[0] = what;
        args[1] = Long.toString(leaseMillis);
        for (int i = 0; i < batch.size(); i++) {
            keys[2 * i] = batch.get(i).clientLeases();
            keys[2 * i + 1] = batch.get(i).addressLeases();
            args[i + 2] = batch.get(i).id();
        }
        commands.incrementAndGet();
        return LEASES.run(on.link(), ScriptOutputType.INTEGER, keys, args);
    }

    /**
     * For tests and the snapshot: refusals remembered, leases held, hits waiting for the next flush, releases waiting
     * for the heartbeat's retry.
     */
    Map<String, Integer> counts() {
        Map<String, Integer> counts = new HashMap<>();
        counts.put("refused", refused.size());
        counts.put("leases", live.size());
        counts.put("unflushed", unflushed.size());
        counts.put("retrying", toForgetSize.get());
        return counts;
    }

    @Override
    public void close() {
        detach();
    }
}
