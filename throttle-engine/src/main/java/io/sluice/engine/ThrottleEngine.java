package io.sluice.engine;

import static io.sluice.engine.Outcomes.ceilDiv;
import static io.sluice.engine.Outcomes.ceilSeconds;

import io.sluice.engine.classify.CrawlerRanges;
import io.sluice.engine.classify.CrawlerVerifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.internal.AggregateLink;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.ClientStores;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CrawlerGate;
import io.sluice.engine.internal.CrawlerSlot;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.LocalClientStateStore;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.ClusterStatus;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/*
 * How the engine works, and why it is built this way.
 *
 * One decision per request, on whatever thread the front end calls from, never blocking and never
 * sleeping: the engine answers Admit, Wait (the caller parks the request and calls resume() later,
 * without holding a thread) or Refuse. Time is read once per decision from the injected
 * InstantSource, so every rule is deterministic under a manual clock.
 *
 * Policy. The live policy is an immutable value, compiled once per version into a CompiledPolicy
 * (ban and allow-list prefix maps, compiled regular expressions, the trusted-proxy resolver) and held
 * in one AtomicReference. A decision reads the reference once and uses that version throughout, so a
 * request never sees half of an edit. Edits are validated whole, then installed by compare-and-set on
 * the reference with version + 1; a replace based on a stale version fails with a conflict rather
 * than silently overwriting another operator's change.
 *
 * The rules run in the order of docs/architecture.md ("Rules") and the first refusal wins:
 *   allow-list lookup, 1 pause, 2 bans, (push the hit), 3 crawler spacing, 4 hit stack,
 *   5 per-client concurrency, 7 progressive delay, 6 load deferral.
 * Progressive delay is evaluated before load deferral on purpose: a delayed request should not hold
 * an upstream slot while it waits, and load is best judged at the moment the request would go. It
 * never refuses, so evaluating it earlier cannot change which rule refuses a request.
 *
 * State, and who guards it.
 *  - Hit stacks, requests in flight and each crawler's last service live behind ClientStateStore (bounded
 *    Caffeine tables locally: one for newcomers, one for clients seen twice; in cluster mode rules 3-5 are asked
 *    of a SharedClientStore instead, on a path of its own: see "cluster mode" below). The store
 *    hands out typed handles and leases (its own types, checked by the compiler), so a second implementation
 *    cannot be handed another's objects. Each client's state is guarded by its own monitor, held for a few
 *    array operations; distinct clients never contend.
 *  - Crawler spacing is keyed by the crawler (its crawler-list entry), not by the (address, user agent) pair,
 *    so a crawler rotating user agents or addresses still gets one turn per gap. "Any crawler served in the
 *    last N s" is its own gate (CrawlerGate, beside LoadGate): one AtomicLong taken by compare-and-set. Rule 3
 *    takes both when it passes (so two crawlers racing cannot both be served inside the gap) and gives them
 *    back if a later rule refuses: only SERVED crawler requests count.
 *  - Per-client in-flight counts live in the client's state, and a state evicted with requests running is
 *    kept aside until they complete (LocalClientStateStore), so eviction can never make the engine forget
 *    a running request and over-admit.
 *  - Load (in flight, waiting) is two AtomicIntegers with compare-and-set loops against the limits,
 *    so no interleaving of threads exceeds maxActive or maxWaiting.
 *  - A slot taken by a decision is released exactly once: Admission.complete and Deferral.cancel
 *    are guarded by a compare-and-set on the object's own state, so a duplicate call is harmless.
 *
 * Telemetry is written on the request path only as increments: one counter in a per-second slot
 * (OutcomeCounters), a wait-free HdrHistogram Recorder for latency, and the per-client ring that the
 * hit stack already keeps (it is the heatmap row). snapshot() does the reading, copying and sorting,
 * on the caller's thread, so the console looking costs requests nothing.
 *
 * Automatic bans. An offence (EscalationTracker) bans the offender on the request thread that saw it, in a set of
 * its own (AutomaticBanSet: hash lookups by exact client and by masked address, consulted in rule 2 beside the
 * compiled bans), so it is refused from its next request on. The ban is then proposed to the one writer of the
 * policy (AutomaticBanProposals: in the server, PolicyChanges), which batches proposals, writes and audits them and
 * installs a version holding them; installing settles the set. The request thread never writes, compiles, nor waits
 * for a lock the writer holds. Expired bans are the writer's too: it asks expiredAutomaticBans() and
 * refreshExpiredBans() on a timer, and a ban's expiry is judged on one clock (banClock(): the engine's, plus
 * Redis's offset in a cluster), so the nodes of a cluster end a ban together.
 *
 * Live edits and state already counted (the engine's "token inheritance" decision):
 *  - Limits apply to the next decision using the state already counted: lowering maxHits refuses at
 *    once every client already above the new limit (until its hits leave the window); raising it
 *    frees them at once. Hits are not reset by an edit.
 *  - The hit stack keeps one bucket per second for the last 60 s whatever the window, so shortening
 *    windowSeconds forgets the older hits at once and lengthening it (up to 60 s) counts hits made
 *    before the edit: the window is a view over history, not a fresh start.
 *  - Lowering maxConcurrent or maxActive never cancels a request in flight: they complete normally,
 *    and new requests are refused or deferred until in-flight counts drop below the new limits.
 *  - Lowering maxWaiting leaves requests already waiting in place; new ones are refused until the
 *    waiting count drops below it. A waiting request resumes under the policy live at resume time
 *    (its maxActive, a pause or a ban added meanwhile refuses it).
 *  - Changing the crawler gaps applies to the time each crawler was last served: shortening
 *    perCrawlerSeconds lets a crawler in sooner, lengthening it holds back one served recently.
 *  - Bans and pause apply to the next decision; requests already admitted are not cut off.
 */

/**
 * The throttle engine: decides about every inbound request under the live {@link Policy} and keeps
 * the telemetry the console shows. Thread-safe; construct once per front end (cheap: no thread, no
 * I/O, tables grow on demand).
 */
public final class ThrottleEngine {

    /**
     * The longest user agent kept: a longer one is cut before it keys, classifies or matches anything. HTTP
     * header values are ISO-8859-1 on the wire, so this is 512 bytes of the header.
     */
    public static final int MAX_USER_AGENT = 512;
    /** The author of automatic bans. */
    public static final String AUTOMATIC_BAN_AUTHOR = "sluice";
    /** The most automatic bans in force at once; beyond it an offender is only refused, not banned. */
    public static final int MAX_AUTOMATIC_BANS = 10_000;
    private static final System.Logger LOG = System.getLogger(ThrottleEngine.class.getName());
    private final EngineConfig config;
    private final InstantSource clock;
    private final AtomicReference<CompiledPolicy> current;
    private final ClientStateStore<?, ?> store;
    /** Per-address aggregates: every user agent of an IPv4 address or an IPv6 prefix, keyed by the masked address. */
    private final ClientStateStore<?, ?> addresses;
    /** {@link #store} and {@link #addresses}, typed together for the decision. */
    private final ClientStores<?, ?, ?, ?> stores;
    /** Route limits: one hit stack per (client, route), keyed by the client with the route's id appended. */
    private final ClientStateStore<?, ?> routeStacks;
    /** Rule 2's bans and the automatic bans (see "Automatic bans" in the essay). */
    private final AutomaticBans bans;
    private final LoadGate load = new LoadGate();
    private final CrawlerGate crawlerGate = new CrawlerGate();
    /** How decisions end: admissions, refusals, waits and the last rules (7, 6). */
    private final Outcomes outcomes;
    /** Outcome counts, latency and the snapshot's rows. */
    private final EngineTelemetry telemetry;
    /** Sees every decision (the what-if shadow), or null. */
    private volatile DecisionTap tap;
    private volatile Supplier<ClusterStatus> clusterStatus = () -> ClusterStatus.standalone(load.inFlight());
    /** Rules 3-5 for the cluster (cluster mode), or null: this node decides alone, on its local stores. */
    private final SharedClientStore<?> shared;
    /** Classification, allow-list, rules 1 and 2: the same on both paths. */
    private final Prelude prelude;
    /** What follows the prelude: rules 3-5 on this node's stores ({@link #judge}), or the cluster's. */
    private final Prelude.Next clientRules;
    /** The live policy's limits divided by the nodes last seen, for cluster mode (see {@link #scaled}). */
    private volatile Scaled scaled;

    /**
     * An engine without reverse DNS: with {@code crawlers.verifySearchEngines} on (the default), a crawler's claim is
     * verified by the published ranges shipped with Sluice ({@link CrawlerRanges#bundled()}) and the policy's
     * {@code crawlers.verifiedRanges} only; a claim from anywhere else is an unverified {@code BOT}.
     *
     * @throws PolicyValidationException when {@code initialPolicy} is not valid
     */
    public ThrottleEngine(EngineConfig config, InstantSource clock, Policy initialPolicy,
                          UserAgentClassifier classifier) {
        this(config, clock, initialPolicy, classifier, null);
    }

    /**
     * @param verifier forward-confirmed reverse DNS for a claim from outside the crawler's published ranges, when
     *                 the policy's {@code crawlers.verifySearchEngines} is on; null for none
     * @throws PolicyValidationException when {@code initialPolicy} is not valid
     */
    public ThrottleEngine(EngineConfig config, InstantSource clock, Policy initialPolicy,
                          UserAgentClassifier classifier, SearchEngineVerifier verifier) {
        this(config, clock, initialPolicy, classifier, verifier, null);
    }

    /**
     * An engine for a node of a cluster: rules 3-5 are decided by {@code shared}, which every node asks, and a
     * decision that needs it is a {@link Decision.Pending} (see {@link SharedClientStore}).
     *
     * @param shared the cluster's per-client store, or null for a single node (the constructor above)
     * @throws PolicyValidationException when {@code initialPolicy} is not valid
     */
    public ThrottleEngine(EngineConfig config, InstantSource clock, Policy initialPolicy,
                          UserAgentClassifier classifier, SearchEngineVerifier verifier,
                          SharedClientStore<?> shared) {
        this.shared = shared;
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(classifier, "classifier");
        this.current = new AtomicReference<>(compile(initialPolicy, clock.millis()));
        this.bans = new AutomaticBans(initialPolicy);
        Duration idle = Duration.ofSeconds(config.idleSeconds());
        LocalClientStateStore clients = new LocalClientStateStore(config.maxTrackedClients(), idle, clock);
        LocalClientStateStore aggregates = LocalClientStateStore.ofAggregates(config.maxTrackedClients(), idle, clock);
        this.stores = ClientStores.local(clients, aggregates);
        this.store = clients;
        this.addresses = aggregates;
        this.telemetry = new EngineTelemetry(config, classifier, clients, aggregates, load, bans);
        this.outcomes = new Outcomes(clock, current, clients, load, crawlerGate, bans, telemetry);
        this.prelude = new Prelude(classifier, new CrawlerVerifier(CrawlerRanges.bundled(), verifier), bans, outcomes);
        this.clientRules = shared == null
                ? (compiled, client, key, address, route, at) -> judge(stores, compiled, client, key, address, route,
                        at)
                : (compiled, client, key, address, route, at) -> judgeShared(shared, stores, compiled, client, key,
                        address, route, at);
        this.routeStacks = new LocalClientStateStore(Math.max(1_000, config.maxTrackedClients() / 10), idle, clock);
    }

    private static CompiledPolicy compile(Policy policy, long nowMillis) {
        List<FieldError> errors = PolicyValidator.validate(policy);
        if (!errors.isEmpty()) {
            throw new PolicyValidationException(errors);
        }
        return new CompiledPolicy(policy, nowMillis);
    }

    /**
     * Sends every automatic ban (escalation) to {@code writer}, the one writer of the policy, once it is in force
     * here: the offender is refused from its next request on, and the writer writes, audits and installs the ban off
     * the request path. Without a writer automatic bans stay in this engine's memory until they expire.
     */
    public void proposeAutomaticBansTo(AutomaticBanProposals writer) {
        bans.proposeTo(Objects.requireNonNull(writer, "writer"));
    }

    /**
     * Ban expiry is judged at this engine's clock plus {@code millis}: in a cluster the difference between Redis's
     * clock and this node's, so that every node ends a ban at the same moment (docs/architecture-cluster.md).
     */
    public void judgeBanExpiryWithOffset(long millis) {
        bans.judgeExpiryWithOffset(millis);
    }

    /** The time bans are judged at: this engine's clock, plus the cluster's offset. */
    public Instant banClock() {
        return Instant.ofEpochMilli(bans.banMillis(clock.millis()));
    }

    /** Automatic bans in force here that the live policy does not hold yet (the writer has them in hand). */
    public List<Ban> pendingAutomaticBans() {
        return bans.pending(clock.millis());
    }

    /** Offenders not banned because {@link #MAX_AUTOMATIC_BANS} were in force (they are refused by their rule). */
    public long automaticBansDropped() {
        return bans.dropped();
    }

    /** Automatic bans in force here that the writer could not take (its queue was full): never written. */
    public long automaticBansUnwritten() {
        return bans.unwritten();
    }

    /** The live policy's automatic bans that have expired, at {@link #banClock()}: for the writer to remove. */
    public List<Ban> expiredAutomaticBans() {
        Instant at = banClock();
        return current.get().policy().bans().stream()
                .filter(b -> AUTOMATIC_BAN_AUTHOR.equals(b.author()) && !b.activeAt(at)).toList();
    }

    /**
     * Compiles the live policy again, without its bans expired since it was compiled, when one has: so expired bans
     * cost the request path nothing. For the policy writer's timer; a request never compiles.
     */
    public void refreshExpiredBans() {
        long now = bans.banMillis(clock.millis());
        CompiledPolicy seen = current.get();
        if (now >= seen.nextBanExpiryMillis()) {
            current.compareAndSet(seen, new CompiledPolicy(seen.policy(), now));
        }
    }

    /** The header trusted proxies set with the client's address, as the live policy names it. */
    public String forwardedHeader() {
        return current.get().policy().forwardedHeader();
    }

    /**
     * {@code userAgent} cut to {@link #MAX_USER_AGENT} characters (never inside a surrogate pair), so a tracked
     * client, a ban match and a classification each cost bounded memory and time whatever the header's length.
     */
    public static String boundedUserAgent(String userAgent) {
        if (userAgent == null || userAgent.length() <= MAX_USER_AGENT) {
            return userAgent;
        }
        int end = Character.isHighSurrogate(userAgent.charAt(MAX_USER_AGENT - 1)) ? MAX_USER_AGENT - 1
                : MAX_USER_AGENT;
        return userAgent.substring(0, end);
    }

    // ---------------------------------------------------------------- decisions

    /**
     * Decides about one request. An {@link Decision.Admit} must be completed once; a
     * {@link Decision.Wait} must be resumed or cancelled once.
     *
     * @throws IllegalArgumentException when the request's peer address is not an IP literal
     */
    public Decision decide(Request request) {
        long now = clock.millis();
        Decision decision = prelude.decide(current.get(), request, now, clientRules);
        DecisionTap observer = tap;
        if (observer == null) {
            return decision;
        }
        if (decision instanceof Decision.Pending pending) {
            // the tap sees the decision once it is made
            return new Decision.Pending(pending.client(),
                    pending.decision().thenApply(made -> observer.tapped(request, now, made)));
        }
        return observer.tapped(request, now, decision);
    }

    /**
     * Watches every decision from now on (the what-if shadow), or stops with null. The tap hands back a
     * decision that acts like the engine's; it never changes an outcome.
     */
    public void tap(DecisionTap newTap) {
        tap = newTap;
    }

    /**
     * The decision, with each store's handle and lease types named (see {@link ClientStateStore}): {@code C}/{@code L}
     * for clients, {@code A}/{@code M} for address aggregates.
     */
    private <C extends AggregateLink<A>, L, A, M> Decision judge(ClientStores<C, L, A, M> stores,
                                                                 CompiledPolicy compiled, ClientInfo client,
                                                                 ClientKey key, IpAddress address,
                                                                 RouteTable.Compiled route, long now) {
        ClientStateStore<C, L> store = stores.clients();
        ClientStateStore<A, M> addresses = stores.addresses();
        Policy policy = compiled.policy();
        String userAgent = key.userAgent();
        RequestClass cls = client.requestClass();
        boolean allowListed = client.allowListed();
        // every request that passes 1-2 is pushed on its hit stacks, with its route's weight (rule 4 counts
        // refused ones too)
        int weight = route.weight();
        Policy.HitStack limits = policy.hitStack();
        HitStackState<C> hits = store.pushHit(key, client, now, limits, weight);
        RateLimitStatus rate = rateLimit(limits, hits);
        if (allowListed) {
            return outcomes.admitExempt(new Pending<>(outcomes, store, client, key, address, null, null, null,
                    addresses, null, null, rate), now);
        }
        Policy.PerAddress perAddress = policy.perAddress();
        ClientKey addressKey = ClientKey.ofAddress(address, perAddress.ipv4Prefix(), perAddress.ipv6Prefix());
        Policy.HitStack addressLimits = compiled.addressLimits();
        HitStackState<A> addressHits = addresses.pushAggregateHit(addressKey, hits.client(), client, now, addressLimits,
                weight);
        HitStackState<?> routeHits = route.limits() == null ? null
                : routeStacks.pushHit(new ClientKey(address, userAgent + '\u0000' + route.id()), client, now,
                        route.limits(), Math.max(1, weight));
        // 3. crawler spacing: this crawler (its list entry), then any crawler
        CrawlerSlot slot = null;
        CrawlerGate.Turn turn = null;
        if (cls == RequestClass.CRAWLER) {
            Policy.Crawlers crawlers = policy.crawlers();
            slot = store.reserveCrawler(crawlerIdentity(client), now, crawlers.perCrawlerSeconds() * 1000L);
            if (!slot.granted()) {
                return outcomes.refuseRule(compiled, client, key, addressKey, Reason.CRAWLER_SPACING,
                        ceilSeconds(slot.waitMillis()), rate, now,
                        "This crawler was served less than " + crawlers.perCrawlerSeconds() + " s ago.");
            }
            turn = crawlerGate.take(now, crawlers.allCrawlersSeconds() * 1000L);
            if (!turn.granted()) {
                store.releaseCrawler(slot);
                return outcomes.refuse(client, key, Reason.CRAWLERS_BUSY, ceilSeconds(turn.waitMillis()), rate, now,
                        "Another crawler was served less than " + crawlers.allCrawlersSeconds() + " s ago.");
            }
        }
        // 4. hit stacks: the client's, the route's, the address's
        if (hits.hitsInWindow() > limits.maxHits()) {
            outcomes.giveBackCrawler(store, slot, turn);
            return outcomes.refuseRule(compiled, client, key, addressKey, Reason.HIT_STACK,
                    ceilSeconds(hits.millisUntilBelow()), rate, now,
                    "More than " + limits.maxHits() + " requests in " + limits.windowSeconds() + " s.");
        }
        if (routeHits != null && routeHits.hitsInWindow() > route.limits().maxHits()) {
            outcomes.giveBackCrawler(store, slot, turn);
            return outcomes.refuseRule(compiled, client, key, addressKey, Reason.ROUTE_LIMIT,
                    ceilSeconds(routeHits.millisUntilBelow()), rate, now,
                    "More than " + route.limits().maxHits() + " requests to this part of the site in "
                            + route.limits().windowSeconds() + " s.");
        }
        if (addressHits.hitsInWindow() > addressLimits.maxHits()) {
            outcomes.giveBackCrawler(store, slot, turn);
            addresses.recordLimited(addressKey, now, true);
            return outcomes.refuseRule(compiled, client, key, addressKey, Reason.ADDRESS_HIT_STACK,
                    ceilSeconds(addressHits.millisUntilBelow()), rate, now,
                    "More than " + addressLimits.maxHits() + " requests from this network address in "
                            + addressLimits.windowSeconds() + " s.");
        }
        // 5. concurrency: the client's, the address's
        int maxConcurrent = policy.perClient().maxConcurrent();
        L inFlight = store.acquireInFlight(key, hits.client(), maxConcurrent);
        if (inFlight == null) {
            outcomes.giveBackCrawler(store, slot, turn);
            return outcomes.refuseRule(compiled, client, key, addressKey, Reason.CLIENT_CONCURRENCY,
                    policy.refusal().retryAfterSeconds(), rate, now,
                    "Already " + maxConcurrent + " requests in progress from this client.");
        }
        M addressInFlight = addresses.acquireInFlight(addressKey, addressHits.client(), perAddress.maxConcurrent());
        if (addressInFlight == null) {
            store.releaseInFlight(inFlight);
            outcomes.giveBackCrawler(store, slot, turn);
            addresses.recordLimited(addressKey, now, true);
            return outcomes.refuseRule(compiled, client, key, addressKey, Reason.ADDRESS_CONCURRENCY,
                    policy.refusal().retryAfterSeconds(), rate, now,
                    "Already " + perAddress.maxConcurrent() + " requests in progress from this network address.");
        }
        Pending<L, M> pending = new Pending<>(outcomes, store, client, key, address, slot, turn, inFlight, addresses,
                addressKey, addressInFlight, rate);
        // 7. progressive delay (before 6: see the essay above), 6. load deferral
        return outcomes.delayOrLoad(compiled, pending, hits.hitsInWindow(), 1, now);
    }

    /** Rule 3 keys a crawler by its list entry: every address and user agent of one crawler share its gap. */
    private static String crawlerIdentity(ClientInfo client) {
        return client.crawlerName() != null ? client.crawlerName() : client.userAgent();
    }

    private static RateLimitStatus rateLimit(Policy.HitStack limits, HitStackState<?> hits) {
        return new RateLimitStatus(limits.maxHits(), Math.max(0, limits.maxHits() - hits.hitsInWindow()),
                ceilSeconds(hits.millisUntilReset()), limits.windowSeconds());
    }

    // ---------------------------------------------------------------- cluster mode: rules 3-5 in a shared store

    /*
     * A separate path, taken only when the engine was built with a SharedClientStore; judge() above is the single
     * node's and is left exactly as it is (its cost is measured on its own). Rules 1-2 and the classification are
     * the same lines as judge's, kept apart on purpose while judge's cost is being worked on.
     *
     * Every request still pushes its hits on this node's local stores: they are this node's view of its clients
     * (the snapshot's heatmap) and what it decides on when the shared store cannot answer. Those pushes use the
     * limits divided by the nodes last seen (Scaled), so a local verdict is ready without recomputing anything. A
     * request admitted by the shared store also takes a slot in the local stores, without a limit: this node's
     * in-flight count stays right for telemetry and for the moment it has to decide alone.
     */

    /**
     * The live policy's hit stacks divided by {@code nodes} (rounded up): what the local pushes report against, so a
     * node that has to decide alone finds its verdict ready.
     */
    private record Scaled(CompiledPolicy of, int nodes, Policy.HitStack hitStack, Policy.HitStack address) {

        static Scaled of(CompiledPolicy compiled, int nodes) {
            return new Scaled(compiled, nodes, divided(compiled.policy().hitStack(), nodes),
                    divided(compiled.addressLimits(), nodes));
        }

        static Policy.HitStack divided(Policy.HitStack limits, int nodes) {
            return nodes == 1 ? limits : new Policy.HitStack(limits.windowSeconds(), ceilDiv(limits.maxHits(), nodes));
        }
    }

    private Scaled scaled(CompiledPolicy compiled, int nodes) {
        Scaled known = scaled;
        if (known != null && known.of() == compiled && known.nodes() == nodes) {
            return known;
        }
        Scaled fresh = Scaled.of(compiled, nodes);
        scaled = fresh;
        return fresh;
    }

    /** What a shared decision carries from the request to the store's answer. */
    private record Asked<C extends AggregateLink<A>, L, A, M>(ClientStores<C, L, A, M> stores, CompiledPolicy compiled,
                                                              Scaled scaled, ClientInfo client, ClientKey key,
                                                              IpAddress address, ClientKey addressKey,
                                                              RouteTable.Compiled route, HitStackState<C> hits,
                                                              HitStackState<A> addressHits, HitStackState<?> routeHits,
                                                              SharedClientStore.Ask ask) {
    }

    private <C extends AggregateLink<A>, L, A, M, S> Decision judgeShared(SharedClientStore<S> shared,
                                                                       ClientStores<C, L, A, M> stores,
                                                                       CompiledPolicy compiled, ClientInfo client,
                                                                       ClientKey key, IpAddress address,
                                                                       RouteTable.Compiled route, long now) {
        ClientStateStore<C, L> store = stores.clients();
        ClientStateStore<A, M> addresses = stores.addresses();
        Policy policy = compiled.policy();
        String userAgent = key.userAgent();
        RequestClass cls = client.requestClass();
        boolean allowListed = client.allowListed();
        int weight = route.weight();
        Scaled alone = scaled(compiled, Math.max(1, shared.nodes()));
        HitStackState<C> hits = store.pushHit(key, client, now, alone.hitStack(), weight);
        if (allowListed) {
            // exempt from rules 3-7: nothing to ask the cluster
            return outcomes.admitExempt(new Pending<>(outcomes, store, client, key, address, null, null, null,
                    addresses, null, null, rateLimit(policy.hitStack(), hits)), now);
        }
        Policy.PerAddress perAddress = policy.perAddress();
        ClientKey addressKey = ClientKey.ofAddress(address, perAddress.ipv4Prefix(), perAddress.ipv6Prefix());
        HitStackState<A> addressHits = addresses.pushAggregateHit(addressKey, hits.client(), client, now,
                alone.address(), weight);
        HitStackState<?> routeHits = route.limits() == null ? null
                : routeStacks.pushHit(new ClientKey(address, userAgent + '\u0000' + route.id()), client, now,
                        Scaled.divided(route.limits(), alone.nodes()), Math.max(1, weight));
        Policy.Crawlers crawlers = policy.crawlers();
        SharedClientStore.Ask ask = new SharedClientStore.Ask(key, addressKey,
                route.limits() == null ? null : route.id(), weight, policy.hitStack(), route.limits(),
                compiled.addressLimits(), policy.perClient().maxConcurrent(), perAddress.maxConcurrent(),
                cls == RequestClass.CRAWLER ? crawlerIdentity(client) : null, crawlers.perCrawlerSeconds() * 1000L,
                crawlers.allCrawlersSeconds() * 1000L, policy.version(), now);
        Asked<C, L, A, M> asked = new Asked<>(stores, compiled, alone, client, key, address, addressKey, route, hits,
                addressHits, routeHits, ask);
        if (!shared.available()) {
            return decideAlone(asked, now);
        }
        CompletableFuture<SharedClientStore.Verdict<S>> answer;
        try {
            answer = shared.admit(ask);
        } catch (RuntimeException e) {
            return decideAlone(asked, now);
        }
        if (answer.isDone()) {
            // answered from what the store already knew (a client refused until a known time): no round trip
            return answer.handle((verdict, failure) -> settle(shared, asked, verdict, failure, now)).join();
        }
        return new Decision.Pending(client,
                answer.handle((verdict, failure) -> settle(shared, asked, verdict, failure, clock.millis())));
    }

    /** The store answered (or failed to): the decision from there on. Never throws. */
    private <C extends AggregateLink<A>, L, A, M, S> Decision settle(SharedClientStore<S> shared,
                                                                  Asked<C, L, A, M> asked,
                                                                  SharedClientStore.Verdict<S> verdict,
                                                                  Throwable failure, long now) {
        if (failure != null || verdict == null) {
            return decideAlone(asked, now); // slow or gone: this node decides alone, at once
        }
        Policy policy = asked.compiled().policy();
        Policy.HitStack limits = policy.hitStack();
        RateLimitStatus rate = new RateLimitStatus(limits.maxHits(), Math.max(0, limits.maxHits()
                - verdict.hitsInWindow()), ceilSeconds(verdict.millisUntilReset()), limits.windowSeconds());
        if (!verdict.admitted()) {
            return refuseShared(asked, asked.ask(), verdict.refusal(), verdict.retryAfterMillis(), rate, now);
        }
        try {
            ClientStateStore<C, L> store = asked.stores().clients();
            ClientStateStore<A, M> addresses = asked.stores().addresses();
            // this node's own count of the client's requests in flight (telemetry; deciding alone later), no limit
            L inFlight = store.acquireInFlight(asked.key(), asked.hits().client(), Integer.MAX_VALUE);
            M addressInFlight = addresses.acquireInFlight(asked.addressKey(), asked.addressHits().client(),
                    Integer.MAX_VALUE);
            SharedPending<L, M, S> pending = new SharedPending<>(outcomes, store, asked.client(), asked.key(),
                    asked.address(), inFlight, addresses, asked.addressKey(), addressInFlight, rate, shared,
                    verdict.lease());
            return outcomes.delayOrLoad(asked.compiled(), pending, verdict.hitsInWindow(), 1, now);
        } catch (RuntimeException e) {
            shared.release(verdict.lease(), false);
            throw e;
        }
    }

    /** The refusal for a rule of 3-5, with judge's words and the limits of {@code ask} (as judged). */
    private Decision refuseShared(Asked<?, ?, ?, ?> asked, SharedClientStore.Ask ask, Reason reason,
                                  long retryAfterMillis, RateLimitStatus rate, long now) {
        Policy policy = asked.compiled().policy();
        long retry = ceilSeconds(retryAfterMillis);
        String detail;
        switch (reason) {
            case CRAWLERS_BUSY:
                return outcomes.refuse(asked.client(), asked.key(), reason, retry, rate, now,
                        "Another crawler was served less than " + ask.allCrawlersMillis() / 1000 + " s ago.");
            case CRAWLER_SPACING:
                detail = "This crawler was served less than " + ask.perCrawlerMillis() / 1000 + " s ago.";
                break;
            case HIT_STACK:
                detail = "More than " + ask.clientLimits().maxHits() + " requests in "
                        + ask.clientLimits().windowSeconds() + " s.";
                break;
            case ROUTE_LIMIT:
                detail = "More than " + ask.routeLimits().maxHits() + " requests to this part of the site in "
                        + ask.routeLimits().windowSeconds() + " s.";
                break;
            case ADDRESS_HIT_STACK:
                asked.stores().addresses().recordLimited(asked.addressKey(), now, true);
                detail = "More than " + ask.addressLimits().maxHits() + " requests from this network address in "
                        + ask.addressLimits().windowSeconds() + " s.";
                break;
            case CLIENT_CONCURRENCY:
                retry = policy.refusal().retryAfterSeconds();
                detail = "Already " + ask.maxConcurrent() + " requests in progress from this client.";
                break;
            case ADDRESS_CONCURRENCY:
                asked.stores().addresses().recordLimited(asked.addressKey(), now, true);
                retry = policy.refusal().retryAfterSeconds();
                detail = "Already " + ask.addressMaxConcurrent() + " requests in progress from this network address.";
                break;
            default:
                throw new IllegalStateException("a shared store cannot refuse for " + reason);
        }
        return outcomes.refuseRule(asked.compiled(), asked.client(), asked.key(), asked.addressKey(), reason, retry,
                rate, now, detail);
    }

    /**
     * Rules 3-5 on this node's state alone, with the limits divided by the nodes last seen (rounded up) and the
     * crawler gaps multiplied by them, while the shared store cannot answer: a client the load balancer spreads
     * over the nodes gets about its cluster allowance in total. The hits were pushed with those limits already.
     */
    private <C extends AggregateLink<A>, L, A, M> Decision decideAlone(Asked<C, L, A, M> asked, long now) {
        ClientStateStore<C, L> store = asked.stores().clients();
        ClientStateStore<A, M> addresses = asked.stores().addresses();
        Scaled alone = asked.scaled();
        SharedClientStore.Ask ask = alone(asked.ask(), alone.nodes());
        HitStackState<C> hits = asked.hits();
        RateLimitStatus rate = rateLimit(ask.clientLimits(), hits);
        CrawlerSlot slot = null;
        CrawlerGate.Turn turn = null;
        // 3. crawler spacing
        if (ask.crawler() != null) {
            slot = store.reserveCrawler(ask.crawler(), now, ask.perCrawlerMillis());
            if (!slot.granted()) {
                return refuseShared(asked, ask, Reason.CRAWLER_SPACING, slot.waitMillis(), rate, now);
            }
            turn = crawlerGate.take(now, ask.allCrawlersMillis());
            if (!turn.granted()) {
                store.releaseCrawler(slot);
                return refuseShared(asked, ask, Reason.CRAWLERS_BUSY, turn.waitMillis(), rate, now);
            }
        }
        // 4. hit stacks: the client's, the route's, the address's
        Reason refusal = null;
        long retryMillis = 0;
        HitStackState<?> routeHits = asked.routeHits();
        if (hits.hitsInWindow() > ask.clientLimits().maxHits()) {
            refusal = Reason.HIT_STACK;
            retryMillis = hits.millisUntilBelow();
        } else if (routeHits != null && routeHits.hitsInWindow() > ask.routeLimits().maxHits()) {
            refusal = Reason.ROUTE_LIMIT;
            retryMillis = routeHits.millisUntilBelow();
        } else if (asked.addressHits().hitsInWindow() > ask.addressLimits().maxHits()) {
            refusal = Reason.ADDRESS_HIT_STACK;
            retryMillis = asked.addressHits().millisUntilBelow();
        }
        if (refusal != null) {
            outcomes.giveBackCrawler(store, slot, turn);
            return refuseShared(asked, ask, refusal, retryMillis, rate, now);
        }
        // 5. concurrency: the client's, the address's
        L inFlight = store.acquireInFlight(asked.key(), hits.client(), ask.maxConcurrent());
        if (inFlight == null) {
            outcomes.giveBackCrawler(store, slot, turn);
            return refuseShared(asked, ask, Reason.CLIENT_CONCURRENCY, 0, rate, now);
        }
        M addressInFlight = addresses.acquireInFlight(asked.addressKey(), asked.addressHits().client(),
                ask.addressMaxConcurrent());
        if (addressInFlight == null) {
            store.releaseInFlight(inFlight);
            outcomes.giveBackCrawler(store, slot, turn);
            return refuseShared(asked, ask, Reason.ADDRESS_CONCURRENCY, 0, rate, now);
        }
        Pending<L, M> pending = new Pending<>(outcomes, store, asked.client(), asked.key(), asked.address(), slot,
                turn, inFlight, addresses, asked.addressKey(), addressInFlight, rate);
        return outcomes.delayOrLoad(asked.compiled(), pending, hits.hitsInWindow(), alone.nodes(), now);
    }

    /**
     * The rules' limits as one node of {@code nodes} applies them alone: counts divided (rounded up), crawler gaps
     * multiplied.
     */
    private static SharedClientStore.Ask alone(SharedClientStore.Ask ask, int nodes) {
        if (nodes == 1) {
            return ask;
        }
        return new SharedClientStore.Ask(ask.client(), ask.address(), ask.route(), ask.weight(),
                Scaled.divided(ask.clientLimits(), nodes),
                ask.routeLimits() == null ? null : Scaled.divided(ask.routeLimits(), nodes),
                Scaled.divided(ask.addressLimits(), nodes), ceilDiv(ask.maxConcurrent(), nodes),
                ceilDiv(ask.addressMaxConcurrent(), nodes), ask.crawler(), ask.perCrawlerMillis() * nodes,
                ask.allCrawlersMillis() * nodes, ask.policyVersion(), ask.nowMillis());
    }

    // ---------------------------------------------------------------- policy

    /** The live policy. */
    public Policy policy() {
        return current.get().policy();
    }

    /**
     * Replaces the live policy with {@code proposed} (its own version is ignored), if the live version
     * is still {@code expectedVersion}.
     *
     * @return the installed policy, with version = previous version + 1
     * @throws PolicyValidationException naming every bad field; nothing changed
     * @throws PolicyConflictException   when the live version is not {@code expectedVersion}; nothing changed
     */
    public Policy replacePolicy(long expectedVersion, Policy proposed) {
        List<FieldError> errors = PolicyValidator.validate(proposed);
        if (!errors.isEmpty()) {
            throw new PolicyValidationException(errors);
        }
        while (true) {
            CompiledPolicy live = current.get();
            long version = live.policy().version();
            if (version != expectedVersion) {
                throw new PolicyConflictException(expectedVersion, version);
            }
            CompiledPolicy next = new CompiledPolicy(proposed.withVersion(version + 1),
                    bans.banMillis(clock.millis()));
            if (current.compareAndSet(live, next)) {
                bans.installed(next.policy(), clock.millis());
                return next.policy();
            }
        }
    }

    /**
     * Applies {@code change} to the live policy and installs the result with the next version, retrying
     * if another change got in first ({@code change} may run more than once: keep it free of side effects).
     *
     * @throws PolicyValidationException when the result is not valid; nothing changed
     */
    public Policy updatePolicy(UnaryOperator<Policy> change) {
        while (true) {
            CompiledPolicy live = current.get();
            long version = live.policy().version();
            Policy proposed = change.apply(live.policy());
            List<FieldError> errors = PolicyValidator.validate(proposed);
            if (!errors.isEmpty()) {
                throw new PolicyValidationException(errors);
            }
            CompiledPolicy next = new CompiledPolicy(proposed.withVersion(version + 1),
                    bans.banMillis(clock.millis()));
            if (current.compareAndSet(live, next)) {
                bans.installed(next.policy(), clock.millis());
                return next.policy();
            }
        }
    }

    /**
     * Installs a version of the cluster's policy exactly as given (its version included), if it is newer than
     * the live one: how a node takes a change made through another node.
     *
     * @return true if installed, false if the live version is already as new
     * @throws PolicyValidationException when it is not valid; nothing changed
     */
    public boolean adoptPolicy(Policy replicated) {
        List<FieldError> errors = PolicyValidator.validate(replicated);
        if (!errors.isEmpty()) {
            throw new PolicyValidationException(errors);
        }
        CompiledPolicy next = new CompiledPolicy(replicated);
        while (true) {
            CompiledPolicy live = current.get();
            if (live.policy().version() >= replicated.version()) {
                return false;
            }
            if (current.compareAndSet(live, next)) {
                bans.installed(next.policy(), clock.millis());
                return true;
            }
        }
    }

    // ---------------------------------------------------------------- telemetry

    /**
     * Cluster mode: the requests in flight on the other nodes, as last read; load deferral then compares the
     * cluster's requests in flight with {@code maxActive} (see {@link LoadGate}).
     */
    public void reportLoadElsewhere(long inFlight) {
        load.elsewhere(inFlight);
    }

    /** Requests admitted on this node and not yet completed; cheap (one volatile read). */
    public int inFlight() {
        return load.inFlight();
    }

    /** Where the snapshot's {@code cluster} part comes from; the server sets it in cluster mode. */
    public void reportClusterStatus(Supplier<ClusterStatus> status) {
        this.clusterStatus = Objects.requireNonNull(status);
    }

    /** Everything the console shows, now. Costs the request path nothing; call it about once a second. */
    public Snapshot snapshot() {
        return telemetry.snapshot(clock.instant(), current.get(), tap, clusterStatus.get());
    }
}
