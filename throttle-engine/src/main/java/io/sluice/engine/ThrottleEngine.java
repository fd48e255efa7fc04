package io.sluice.engine;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.classify.CrawlerRanges;
import io.sluice.engine.classify.CrawlerVerifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.classify.SignedAgents;
import io.sluice.engine.internal.AggregateLink;
import io.sluice.engine.internal.ClientStores;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CrawlerGate;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.LocalClientStateStore;
import io.sluice.engine.internal.RouteTable;
import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.robots.RobotsTxt;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.ClusterStatus;
import io.sluice.engine.telemetry.CrawlerVerification;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * than silently overwriting another operator's change. Only the holder of the engine's one PolicyWriter
 * (claimPolicyWriter(), handed out once) changes the policy: the engine installs, the holder audits and persists
 * (the server's PolicyChanges), so nothing that merely holds the engine can write past the audit.
 *
 * The rules run in the order of docs/architecture.md ("Rules") and the first refusal wins:
 *   allow-list lookup, 1 pause, 2 bans, (push the hit), 3 crawler spacing, 4 hit stack,
 *   5 per-client concurrency, 7 progressive delay, 6 load deferral.
 * A decision is a short pipeline, one class a stage, each rule written once:
 *   Prelude        classification (the crawler's claim verified), allow-list, 1 pause, 2 bans; the same
 *                  on a single node and on a node of a cluster.
 *   AgentRules     a named agent's category and its action (crawl, refuse, challenge, allow), robots.txt kept or
 *                  broken (counted, escalated to a ban), the trap path; after the bans so a ban always wins, before
 *                  the browser check and the client rules so a refused agent is counted against nothing.
 *   BrowserGate    the browser check: a browser claim's pass checked (a signature, no shared state), and while
 *                  the check asks (always, under pressure, a network over budget, a marked route) a page without
 *                  a pass answered with the interstitial. A pass is an identity with a hit stack of its own. A
 *                  network's browser requests in flight are limited here too; the slot travels with the decision.
 *   ClientRules    3-5 on this node's stores, under ClientRules.Limits: the policy's on a single node, the
 *                  same limits scaled to the nodes last seen on a cluster node that has to decide alone.
 *   SharedRules    cluster mode only: asks 3-5 of the SharedClientStore every node asks (a Decision.Pending),
 *                  and falls back to ClientRules when it cannot answer. Its refusals are worded by ClientRules.
 *   Outcomes       7 and 6, and how a decision ends: admitted (Pending, the admission), refused, or parked
 *                  (Parked: the two waits, which meet 1, 2 and 6 again on resume).
 * Beside the pipeline: AutomaticBans (rule 2's lookup, escalation and its bans, the ban clock) and
 * EngineTelemetry (counters, latency, the snapshot's rows). ThrottleEngine assembles them and keeps the
 * policy's lifecycle.
 * Progressive delay is evaluated before load deferral on purpose: a delayed request should not hold
 * an upstream slot while it waits, and load is best judged at the moment the request would go. It
 * never refuses, so evaluating it earlier cannot change which rule refuses a request.
 *
 * State, and who guards it.
 *  - Hit stacks, requests in flight and each crawler's last service live behind ClientStateStore (bounded
 *    Caffeine tables locally: one for newcomers, one for clients seen twice; in cluster mode rules 3-5 are asked
 *    of a SharedClientStore first: see SharedRules). The store
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
 * hit stack already keeps (it is the heatmap row). snapshot() (EngineTelemetry) does the reading, copying
 * and sorting, on the caller's thread, so the console looking costs requests nothing.
 *
 * Automatic bans (AutomaticBans). An offence (EscalationTracker) bans the offender on the request thread that saw
 * it, in a set of its own (AutomaticBanSet: hash lookups by exact client and by masked address, consulted in rule 2
 * beside the compiled bans), so it is refused from its next request on. The ban is then proposed to the one writer
 * of the policy (AutomaticBanProposals: in the server, PolicyChanges), which batches proposals, writes and audits
 * them and installs a version holding them; installing settles the set. The request thread never writes, compiles,
 * nor waits for a lock the writer holds. Expired bans are the writer's too: it asks expiredAutomaticBans() and
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

    /** The author of automatic bans. */
    public static final String AUTOMATIC_BAN_AUTHOR = AutomaticBans.AUTHOR;
    /** The most automatic bans in force at once; beyond it an offender is only refused, not banned. */
    public static final int MAX_AUTOMATIC_BANS = AutomaticBans.MAX_IN_FORCE;
    private final InstantSource clock;
    private final AtomicReference<CompiledPolicy> current;
    /** Whether {@link #claimPolicyWriter()} has handed out the policy's one writer. */
    private final AtomicBoolean writerClaimed = new AtomicBoolean();
    /** Rule 2's bans and the automatic bans (see "Automatic bans" in the essay). */
    private final AutomaticBans bans;
    /** Requests in flight and waiting on this node (rule 6). */
    private final LoadGate load = new LoadGate();
    /** Outcome counts, latency and the snapshot's rows. */
    private final EngineTelemetry telemetry;
    /** Sees every decision (the what-if shadow), or null. */
    private volatile DecisionTap tap;
    private volatile Supplier<ClusterStatus> clusterStatus = () -> ClusterStatus.standalone(load.inFlight());
    /** Classification, allow-list, rules 1 and 2: the same on a single node and in a cluster. */
    private final Prelude prelude;
    /** Whether a crawler's claim is true: its published ranges (replaceable at runtime) and reverse DNS. */
    private final CrawlerVerifier crawlerVerifier;
    /** What follows the prelude: rules 3-5 on this node's stores or the cluster's, then 7 and 6. */
    private final Prelude.Next clientRules;
    /** The browser check's passes: signed and checked with the key ring the front end installs. */
    private final BrowserPasses passes;
    private final ProofOfWork proofOfWork;
    private final BrowserGate browserGate;
    /** Categories, robots.txt compliance and the trap (between rule 2 and the browser check). */
    private final AgentRules agentRules;

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
        Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(classifier, "classifier");
        this.current = new AtomicReference<>(compile(initialPolicy, clock.millis()));
        this.bans = new AutomaticBans(initialPolicy);
        Duration idle = Duration.ofSeconds(config.idleSeconds());
        LocalClientStateStore clients = new LocalClientStateStore(config.maxTrackedClients(), idle, clock);
        LocalClientStateStore aggregates = LocalClientStateStore.ofAggregates(config.maxTrackedClients(), idle, clock);
        LocalClientStateStore routeStacks = new LocalClientStateStore(Math.max(1_000, config.maxTrackedClients() / 10),
                idle, clock);
        this.telemetry = new EngineTelemetry(config, classifier, clients, aggregates, load, bans, clock.millis());
        Outcomes outcomes = new Outcomes(clock, current, clients, load, new CrawlerGate(), bans, telemetry);
        long networkCapacity = Math.max(1_000, config.maxTrackedClients() / 10);
        this.passes = new BrowserPasses(PassKeyRing.of(PassKey.random(new SecureRandom())));
        this.proofOfWork = new ProofOfWork(passes);
        this.browserGate = new BrowserGate(passes, load, outcomes,
                LocalClientStateStore.ofAggregates(networkCapacity, idle, clock),
                LocalClientStateStore.ofAggregates(networkCapacity, idle, clock),
                new LocalClientStateStore(networkCapacity, idle, clock), new PassCooldowns(networkCapacity,
                clock.millis()), shared, new LocalClientStateStore(networkCapacity, idle, clock));
        this.crawlerVerifier = new CrawlerVerifier(CrawlerRanges.bundled(), verifier);
        this.agentRules = new AgentRules(outcomes, bans, passes);
        this.prelude = new Prelude(classifier, crawlerVerifier, bans, outcomes, browserGate, agentRules);
        ClientRules rules = new ClientRules(outcomes, outcomes.crawlerGate(), routeStacks);
        this.clientRules = next(ClientStores.local(clients, aggregates), rules,
                shared == null ? null : new SharedRules<>(shared, rules, outcomes, clock));
    }

    /** The stage after the prelude: this node's client rules, or the cluster's when {@code cluster} is given. */
    private static <C extends AggregateLink<A>, L, A, M> Prelude.Next next(ClientStores<C, L, A, M> stores,
                                                                           ClientRules rules,
                                                                           SharedRules<?> cluster) {
        if (cluster == null) {
            return (compiled, client, key, address, route, now) -> rules.judge(stores, compiled, client, key,
                    address, route, now);
        }
        return new Prelude.Next() {
            @Override
            public Decision afterPrelude(CompiledPolicy compiled, ClientInfo client, ClientKey key, IpAddress address,
                                         RouteTable.Compiled route, long now) {
                return cluster.judge(stores, compiled, client, key, address, route, now, null);
            }

            @Override
            public Decision afterGate(CompiledPolicy compiled, ClientInfo client, ClientKey key, IpAddress address,
                                      RouteTable.Compiled route, long now, NetworkAsk network) {
                return cluster.judge(stores, compiled, client, key, address, route, now, network);
            }
        };
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

    /**
     * Verifies Web Bot Auth signatures with {@code agents} from the next request on (docs/manual/signed-agents.md):
     * a request it answers for is a verified {@code CRAWLER} under the agent's name. Null: believe none (the
     * default).
     */
    public void verifySignedAgentsWith(SignedAgents agents) {
        prelude.signedAgents(agents);
    }

    /** The header trusted proxies set with the client's address, as the live policy names it. */
    public String forwardedHeader() {
        return current.get().policy().forwardedHeader();
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

    // ---------------------------------------------------------------- browser check

    /**
     * The browser check's passes. An engine starts with a key of its own, made at random; the front end installs the
     * state directory's ring ({@link BrowserPasses#keys(PassKeyRing)}), so passes outlive a restart and every node
     * of a cluster accepts the others'.
     */
    public BrowserPasses browserPasses() {
        return passes;
    }

    /** The proofs-of-work the interstitial asks for, signed with the same ring as the passes. */
    public ProofOfWork proofOfWork() {
        return proofOfWork;
    }

    /**
     * A right answer from {@code address} ({@code weak}: by the no-JavaScript path): 0 when it earns its pass (counted
     * as earned), otherwise how many milliseconds its network waits before it may earn one (counted as withheld): a
     * network one of whose passes was dropped earns new ones only after a cooldown (docs/manual/policy.md, "The
     * browser check").
     */
    public long earnPass(IpAddress address, boolean weak) {
        return browserGate.earn(current.get().policy().browserCheck(), address, weak, clock.millis());
    }

    /** The front end refused an answer to a challenge from {@code address}; counted, and on its network's row. */
    public void answerRefused(IpAddress address) {
        browserGate.refusedAnswer(address, clock.millis());
    }

    /**
     * The address the engine keys {@code request} by: the peer's, or what a trusted proxy of the live policy reports.
     * The pass endpoint binds a pass to the same network the engine will check it against.
     *
     * @throws IllegalArgumentException when the peer address is not an IP literal
     */
    public IpAddress clientAddress(Request request) {
        return current.get().resolver().resolve(request);
    }

    /** Whether the browser check counts the site as under pressure now. */
    public boolean underPressure() {
        return browserGate.underPressure(clock.millis());
    }

    /**
     * Looks browser claims' addresses up in {@code table} from the next request on: a budget per autonomous system,
     * the policy's {@code alwaysChallengeAsns} and the snapshot's AS rows use it (docs/manual/policy.md,
     * "Autonomous systems"). Null forgets the table: no address is in any AS. The engine works without one.
     */
    public void useAsnTable(AsnTable table) {
        browserGate.asns(table);
    }

    /** The IP-to-ASN table in use ({@link AsnTable#EMPTY} when none). */
    public AsnTable asnTable() {
        return browserGate.asns();
    }

    // ---------------------------------------------------------------- agents

    /**
     * Installs the upstream's robots.txt, as the front end last read it (off the request path): from the next request
     * on, each named agent's requests to paths its group disallows are counted (and escalated under
     * {@code agents.robots.escalation}). Null forgets it: nothing is counted until one is installed again.
     */
    public void robotsTxt(RobotsTxt robots) {
        agentRules.robots(robots, clock.instant());
    }

    // ---------------------------------------------------------------- policy

    /** The live policy. */
    public Policy policy() {
        return current.get().policy();
    }

    /**
     * Hands out the policy's one writer: the only way to change the live policy after construction, and only once per
     * engine. The engine validates and installs; it keeps no audit log and writes nothing to disk, so whoever claims
     * the writer owns those. In Sluice's server (and embedded mode) the server claims it as the engine is built and
     * its {@code PolicyChanges} validates, persists and audits every change before installing it: an embedder given
     * {@code engine()} there reads the policy and changes it through the admin API or {@code policyChanges()}, never
     * past the audit. An embedder of the bare engine claims it for itself; the audit, if any, is then its own.
     *
     * @throws IllegalStateException when the writer was claimed before
     */
    public PolicyWriter claimPolicyWriter() {
        if (!writerClaimed.compareAndSet(false, true)) {
            throw new IllegalStateException("the policy has one writer and it was claimed already: change the policy "
                    + "through it (in the server: the admin API or PolicyChanges, which audit every change)");
        }
        return new PolicyWriter(this);
    }

    /** {@link PolicyWriter#replace}: the writer's only way in. */
    Policy replacePolicy(long expectedVersion, Policy proposed) {
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

    /** {@link PolicyWriter#update}. */
    Policy updatePolicy(UnaryOperator<Policy> change) {
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

    /** {@link PolicyWriter#adopt}. */
    boolean adoptPolicy(Policy replicated) {
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

    /**
     * The per-second counts by class and outcome (the snapshot's {@link Snapshot#seconds()}), oldest first, the newest
     * the second in progress: for a caller that needs only these, every second (a cluster node's heartbeat), since
     * a whole snapshot also scans every tracked client for the busiest, a cost that grows with the clients.
     */
    public List<SecondCounts> secondCounts() {
        return telemetry.seconds(clock.millis());
    }

    /** Everything the console shows, now. Costs the request path nothing; call it about once a second. */
    public Snapshot snapshot() {
        // The pending automatic bans before the policy: the writer installs a version holding a ban before it leaves
        // the pending set, so read in this order the ban is in one or the other (a snapshot never misses it).
        Instant now = clock.instant();
        List<Ban> pendingBans = bans.pending(now.toEpochMilli());
        CompiledPolicy compiled = current.get();
        return telemetry.snapshot(now, compiled, pendingBans, tap, clusterStatus.get(),
                browserGate.counts(compiled.policy().browserCheck(), now.toEpochMilli()), crawlerVerifier.state(now),
                agentRules.view(compiled.policy().agents(), now.toEpochMilli()), browserGate.asns());
    }

    /**
     * Verifies crawlers' claims by {@code ranges} from the next request on (an operator's fresher copy of the
     * published ranges over the bundled one, checked by the caller), reporting {@code sources} in the snapshot.
     */
    public void useCrawlerRanges(CrawlerRanges ranges, List<CrawlerVerification.RangesSource> sources) {
        crawlerVerifier.use(ranges, sources);
    }

    /** The published ranges crawlers' claims are verified by now. */
    public CrawlerRanges crawlerRanges() {
        return crawlerVerifier.published();
    }
}
