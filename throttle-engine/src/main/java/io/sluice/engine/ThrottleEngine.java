package io.sluice.engine;

import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.internal.ClientKey;
import io.sluice.engine.internal.ClientSample;
import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.CompiledPolicy;
import io.sluice.engine.internal.CrawlerSlot;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.LatencyTracker;
import io.sluice.engine.internal.LoadGate;
import io.sluice.engine.internal.LocalClientStateStore;
import io.sluice.engine.internal.OutcomeCounters;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.ClusterStatus;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.Snapshot;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
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
 * The rules run in DESIGN.md's order and the first refusal wins:
 *   allow-list lookup, 1 pause, 2 bans, (push the hit), 3 crawler spacing, 4 hit stack,
 *   5 per-client concurrency, 7 progressive delay, 6 load deferral.
 * Progressive delay is evaluated before load deferral on purpose: a delayed request should not hold
 * an upstream slot while it waits, and load is best judged at the moment the request would go. It
 * never refuses, so evaluating it earlier cannot change which rule refuses a request.
 *
 * State, and who guards it.
 *  - Hit stacks and crawler spacing live behind ClientStateStore (bounded Caffeine tables locally: one for
 *    newcomers, one for clients seen twice; a shared store later). Each client's state is guarded by its
 *    own monitor, held for a few array operations; distinct clients never contend.
 *  - "Any crawler served in the last N s" is one AtomicLong taken by compare-and-set. Rule 3 takes
 *    its slots when it passes (so two crawlers racing cannot both be served inside the gap) and gives
 *    them back if a later rule refuses: only SERVED crawler requests count.
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

    /** A client refused or delayed this recently is shown as {@link ClientStatus#LIMITED}. */
    private static final long LIMITED_SHOWN_MILLIS = 5_000;
    private static final int HISTORY_SECONDS = 300;
    private static final int LATENCY_SECONDS = 60;
    private static final VarHandle COMPLETED;

    static {
        try {
            COMPLETED = MethodHandles.lookup().findVarHandle(Pending.class, "completed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EngineConfig config;
    private final InstantSource clock;
    private final UserAgentClassifier classifier;
    private final AtomicReference<CompiledPolicy> current;
    private final ClientStateStore store;
    private final LoadGate load = new LoadGate();
    private final OutcomeCounters counters = new OutcomeCounters(HISTORY_SECONDS);
    private final LatencyTracker latency = new LatencyTracker(LATENCY_SECONDS);
    private final SearchEngineVerifier verifier;
    private volatile Supplier<ClusterStatus> clusterStatus = () -> ClusterStatus.standalone(load.inFlight());

    /**
     * An engine without search-engine verification: with {@code crawlers.verifySearchEngines} on, every
     * claimant of a verifiable search engine is then treated as an unverified {@code BOT}.
     *
     * @throws PolicyValidationException when {@code initialPolicy} is not valid
     */
    public ThrottleEngine(EngineConfig config, InstantSource clock, Policy initialPolicy,
                          UserAgentClassifier classifier) {
        this(config, clock, initialPolicy, classifier, null);
    }

    /**
     * @param verifier checks search-engine claimants when the policy's {@code crawlers.verifySearchEngines}
     *                 is on; null for none
     * @throws PolicyValidationException when {@code initialPolicy} is not valid
     */
    public ThrottleEngine(EngineConfig config, InstantSource clock, Policy initialPolicy,
                          UserAgentClassifier classifier, SearchEngineVerifier verifier) {
        this.verifier = verifier;
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        this.current = new AtomicReference<>(compile(initialPolicy));
        this.store = new LocalClientStateStore(config.maxTrackedClients(),
                Duration.ofSeconds(config.idleSeconds()), clock);
    }

    private static CompiledPolicy compile(Policy policy) {
        List<FieldError> errors = PolicyValidator.validate(policy);
        if (!errors.isEmpty()) {
            throw new PolicyValidationException(errors);
        }
        return new CompiledPolicy(policy);
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
        CompiledPolicy compiled = current.get();
        Policy policy = compiled.policy();
        IpAddress address = compiled.resolver().resolve(request);
        String userAgent = request.userAgent() == null ? "" : request.userAgent();
        UserAgentMatch match = classifier.classify(request.userAgent(), policy.classification());
        RequestClass cls = verified(match.requestClass(), policy, userAgent, address);
        CompiledPolicy.Allowance allowance = compiled.allowance(address, userAgent);
        boolean allowListed = allowance != CompiledPolicy.Allowance.NONE;
        ClientKey key = new ClientKey(address, userAgent);
        ClientInfo client = new ClientInfo(address.toString(), userAgent, cls, match.crawlerName(), allowListed);

        // 1. pause
        if (compiled.pauses(cls) && allowance != CompiledPolicy.Allowance.EXEMPT_INCLUDING_PAUSE) {
            return refuse(client, key, Reason.PAUSED, policy.refusal().retryAfterSeconds(), null, now,
                    policy.pause().all() ? "The service is paused." : "Service to " + cls + " clients is paused.");
        }
        // 2. bans
        Ban ban = compiled.findBan(address, key, now);
        if (ban != null) {
            return refuseBanned(client, key, ban, now);
        }
        // every request that passes 1-2 is pushed on its hit stack (rule 4 counts refused ones too)
        Policy.HitStack limits = policy.hitStack();
        HitStackState hits = store.pushHit(key, client, now, limits);
        RateLimitStatus rate = rateLimit(limits, hits);
        if (allowListed) {
            load.enter();
            return admit(new Pending(client, key, address, null, null, rate), now, false);
        }
        // 3. crawler spacing
        CrawlerSlot slot = null;
        if (cls == RequestClass.CRAWLER) {
            Policy.Crawlers crawlers = policy.crawlers();
            slot = store.reserveCrawlerSlot(key, hits.client(), now, crawlers.perCrawlerSeconds() * 1000L,
                    crawlers.allCrawlersSeconds() * 1000L);
            if (!slot.granted()) {
                return refuse(client, key, slot.refusal(), ceilSeconds(slot.retryMillis()), rate, now,
                        slot.refusal() == Reason.CRAWLER_SPACING
                                ? "This crawler was served less than " + crawlers.perCrawlerSeconds() + " s ago."
                                : "Another crawler was served less than " + crawlers.allCrawlersSeconds()
                                        + " s ago.");
            }
        }
        // 4. hit stack
        if (hits.hitsInWindow() > limits.maxHits()) {
            store.releaseCrawlerSlot(slot);
            return refuse(client, key, Reason.HIT_STACK, ceilSeconds(hits.millisUntilBelow()), rate, now,
                    "More than " + limits.maxHits() + " requests in " + limits.windowSeconds() + " s.");
        }
        // 5. per-client concurrency
        int maxConcurrent = policy.perClient().maxConcurrent();
        Object inFlight = store.acquireInFlight(key, hits.client(), maxConcurrent);
        if (inFlight == null) {
            store.releaseCrawlerSlot(slot);
            return refuse(client, key, Reason.CLIENT_CONCURRENCY, policy.refusal().retryAfterSeconds(), rate, now,
                    "Already " + maxConcurrent + " requests in progress from this client.");
        }
        Pending pending = new Pending(client, key, address, slot, inFlight, rate);
        // 7. progressive delay (before 6: see the essay above)
        Policy.ProgressiveDelay progressive = compiled.progressiveDelay(cls);
        if (progressive != null && hits.hitsInWindow() > progressive.softHits()) {
            long delay = Math.min(progressive.maxDelayMillis(),
                    (long) (hits.hitsInWindow() - progressive.softHits()) * progressive.delayMillisPerHit());
            store.recordLimited(key, now, false);
            return new Decision.Wait(client, Reason.DELAYED, delay, new DelayDeferral(pending));
        }
        // 6. load deferral
        return loadStage(pending, policy, now, false);
    }

    /**
     * A crawler claiming a verifiable search engine stays a {@code CRAWLER} only once its address passed
     * forward-confirmed reverse DNS; until then (lookup pending, failed, or no verifier) it is a
     * {@code BOT}, so copying Googlebot's user agent buys nothing.
     */
    private RequestClass verified(RequestClass cls, Policy policy, String userAgent, IpAddress address) {
        if (cls != RequestClass.CRAWLER || !policy.crawlers().verifySearchEngines()
                || SearchEngineVerifier.claimedEngine(userAgent) == null) {
            return cls;
        }
        if (verifier != null && verifier.status(userAgent, address) == SearchEngineVerifier.Status.VERIFIED) {
            return cls;
        }
        return RequestClass.BOT;
    }

    private Decision loadStage(Pending pending, Policy policy, long now, boolean afterWait) {
        RequestClass cls = pending.client.requestClass();
        if (cls == RequestClass.BROWSER) {
            load.enter(); // a browser is served whatever the load
            return admit(pending, now, afterWait);
        }
        Policy.Load limits = policy.load();
        if (load.tryEnter(limits.maxActive())) {
            return admit(pending, now, afterWait);
        }
        if (load.tryWait(limits.maxWaiting())) {
            store.recordLimited(pending.key, now, false);
            return new Decision.Wait(pending.client, Reason.LOAD, limits.deferMillis(), new LoadDeferral(pending));
        }
        pending.release();
        return refuse(pending.client, pending.key, Reason.LOAD, policy.refusal().retryAfterSeconds(),
                pending.rate, now, "The site is busy: " + limits.maxWaiting() + " requests are already waiting.");
    }

    private Decision admit(Pending pending, long now, boolean afterWait) {
        counters.admitted(pending.client.requestClass(), now, afterWait);
        return new Decision.Admit(pending.client, pending, pending.rate);
    }

    private Decision refuse(ClientInfo client, ClientKey key, Reason reason, long retryAfterSeconds,
                            RateLimitStatus rate, long now, String detail) {
        counters.refused(client.requestClass(), reason, now);
        store.recordLimited(key, now, true);
        return new Decision.Refuse(client, reason, reason.httpStatus(), retryAfterSeconds, rate, detail);
    }

    private Decision refuseBanned(ClientInfo client, ClientKey key, Ban ban, long now) {
        long retry = ban.expiresAt() == null ? -1 : ceilSeconds(ban.expiresAt().toEpochMilli() - now);
        String reason = ban.reason() == null || ban.reason().isBlank() ? "" : " Reason: " + ban.reason();
        return refuse(client, key, Reason.BANNED, retry, null, now, "This client is banned." + reason);
    }

    private static RateLimitStatus rateLimit(Policy.HitStack limits, HitStackState hits) {
        return new RateLimitStatus(limits.maxHits(), Math.max(0, limits.maxHits() - hits.hitsInWindow()),
                ceilSeconds(hits.millisUntilReset()), limits.windowSeconds());
    }

    /** Whole seconds, rounded up, for {@code Retry-After}: never tell a client to come back too early. */
    static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }

    /**
     * What a decision holds between its rules and its admission (the client's concurrency and crawler
     * slots), and once admitted, the admission itself: its slots are released exactly once, guarded by a
     * compare-and-set on {@link #completed}, so a duplicate {@code complete} is harmless.
     */
    private final class Pending implements Decision.Admission {
        final ClientInfo client;
        final ClientKey key;
        final IpAddress address;
        final CrawlerSlot crawlerSlot;
        /** The store's token for the client's in-flight slot, or null when none was taken (allow-listed). */
        final Object inFlight;
        final RateLimitStatus rate;
        /** 1 once completed; only through {@link #COMPLETED}. */
        @SuppressWarnings("unused")
        private volatile int completed;

        Pending(ClientInfo client, ClientKey key, IpAddress address, CrawlerSlot crawlerSlot, Object inFlight,
                RateLimitStatus rate) {
            this.client = client;
            this.key = key;
            this.address = address;
            this.crawlerSlot = crawlerSlot;
            this.inFlight = inFlight;
            this.rate = rate;
        }

        /** The request will not be served: give its slots back. Called at most once per pending. */
        void release() {
            if (inFlight != null) {
                store.releaseInFlight(inFlight);
            }
            store.releaseCrawlerSlot(crawlerSlot);
        }

        /** The admitted request finished: frees its load and concurrency slots, once. */
        @Override
        public void complete(int status, long upstreamLatencyNanos) {
            if (!COMPLETED.compareAndSet(this, 0, 1)) {
                return;
            }
            load.exit();
            if (inFlight != null) {
                store.releaseInFlight(inFlight);
            }
            latency.record(upstreamLatencyNanos);
        }

        /** A pause or ban installed while the request waited refuses it; else null. */
        Decision refusedMeanwhile(CompiledPolicy compiled, long now) {
            if (compiled.pauses(client.requestClass())) {
                release();
                return refuse(client, key, Reason.PAUSED, compiled.policy().refusal().retryAfterSeconds(), rate,
                        now, "The service was paused while this request waited.");
            }
            Ban ban = compiled.findBan(address, key, now);
            if (ban != null) {
                release();
                return refuseBanned(client, key, ban, now);
            }
            return null;
        }
    }

    /** Shared resume/cancel bookkeeping: exactly one of them takes effect, once. */
    private abstract class Parked implements Decision.Deferral {
        private static final int WAITING = 0;
        private static final int RESUMED = 1;
        private static final int CANCELLED = 2;
        final Pending pending;
        private final AtomicInteger state = new AtomicInteger(WAITING);

        Parked(Pending pending) {
            this.pending = pending;
        }

        @Override
        public final Decision resume() {
            if (!state.compareAndSet(WAITING, RESUMED)) {
                throw new IllegalStateException("this wait was already " + (state.get() == RESUMED
                        ? "resumed" : "cancelled"));
            }
            leaveWait();
            long now = clock.millis();
            CompiledPolicy compiled = current.get();
            Decision refused = pending.refusedMeanwhile(compiled, now);
            return refused != null ? refused : proceed(compiled.policy(), now);
        }

        @Override
        public final void cancel() {
            if (state.compareAndSet(WAITING, CANCELLED)) {
                leaveWait();
                pending.release();
            }
        }

        abstract void leaveWait();

        abstract Decision proceed(Policy policy, long now);
    }

    /** Rule 7's wait: afterwards the remaining rule (load deferral) decides. */
    private final class DelayDeferral extends Parked {
        DelayDeferral(Pending pending) {
            super(pending);
        }

        @Override
        void leaveWait() {
            // a progressive delay holds no waiting place
        }

        @Override
        Decision proceed(Policy policy, long now) {
            return loadStage(pending, policy, now, true);
        }
    }

    /** Rule 6's wait: holds a waiting place; afterwards admitted if the load allows, else refused. */
    private final class LoadDeferral extends Parked {
        LoadDeferral(Pending pending) {
            super(pending);
        }

        @Override
        void leaveWait() {
            load.endWait();
        }

        @Override
        Decision proceed(Policy policy, long now) {
            if (load.tryEnter(policy.load().maxActive())) {
                return admit(pending, now, true);
            }
            pending.release();
            return refuse(pending.client, pending.key, Reason.LOAD, policy.refusal().retryAfterSeconds(),
                    pending.rate, now, "The site is busy: " + policy.load().maxActive()
                            + " requests are in progress.");
        }
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
            CompiledPolicy next = new CompiledPolicy(proposed.withVersion(version + 1));
            if (current.compareAndSet(live, next)) {
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
            CompiledPolicy next = new CompiledPolicy(proposed.withVersion(version + 1));
            if (current.compareAndSet(live, next)) {
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
                return true;
            }
        }
    }

    // ---------------------------------------------------------------- telemetry

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
        Instant nowInstant = clock.instant();
        long now = nowInstant.toEpochMilli();
        CompiledPolicy compiled = current.get();
        Policy policy = compiled.policy();
        List<ClientRow> rows = new ArrayList<>();
        for (ClientSample sample : store.busiest(config.topClients(), now, policy.hitStack().windowSeconds())) {
            rows.add(row(sample, compiled, nowInstant));
        }
        List<Ban> bans = policy.bans().stream().filter(b -> b.activeAt(nowInstant)).toList();
        return new Snapshot(nowInstant, policy.version(), policy.pause(), counters.lastSeconds(now),
                new LoadState(load.inFlight(), load.waiting(), policy.load().maxActive(), policy.load().maxWaiting()),
                latency.summary(now), List.copyOf(rows),
                new ClientTableStats(store.tracked(), store.capacity(), store.evicted()), bans, counters.totals(),
                clusterStatus.get());
    }

    private ClientRow row(ClientSample sample, CompiledPolicy compiled, Instant now) {
        ClientKey key = sample.key();
        ClientStatus status;
        if (compiled.findBan(key.address(), key, now.toEpochMilli()) != null) {
            status = ClientStatus.BANNED;
        } else if (sample.allowListed()) {
            status = ClientStatus.ALLOWED;
        } else if (sample.lastLimitedMillis() != Long.MIN_VALUE
                && now.toEpochMilli() - sample.lastLimitedMillis() < LIMITED_SHOWN_MILLIS) {
            status = ClientStatus.LIMITED;
        } else {
            status = ClientStatus.OK;
        }
        return new ClientRow(key.ip(), key.userAgent(), sample.requestClass(), sample.crawlerName(),
                sample.hitsInWindow(), sample.inFlight(), sample.hitsPerSecond(), sample.refusedPerSecond(),
                status, Instant.ofEpochMilli(sample.lastSeenMillis()));
    }
}
