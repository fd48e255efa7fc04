package io.sluice.engine.governor;

import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The permit service for crawler workers (docs/architecture.md, "Crawl governor"): "may I fetch from this
 * domain now?" answered per domain by a pacer at a rate learned from the workers' feedback, under
 * {@code Retry-After} floors, a 429 backoff, a circuit breaker and give-up. A grant is a slot in
 * time, not a held connection, so a slow domain never holds up another.
 *
 * <p>Thread-safe. Time comes only from the injected clock; the policy is read on every call, so a
 * live edit applies to the next permit.
 *
 * <p>Bounded whatever the workers send: learned state is kept for at most {@link Capacity#domains()}
 * domains (Caffeine's size bound: the least recently and least often used go first), and what must
 * outlive that state (given-up marks, operator minimum delays) is capped too: past
 * {@link Capacity#givenUp()} marks the oldest is forgotten; past {@link Capacity#minDelays()} delays an
 * operator must remove one before setting another.
 *
 * <p>This class answers the calls; its parts each have one job: {@link DomainState} (one domain: grant path and
 * judging, with {@link DomainPace}, {@link Block}, {@link RateLearner}), {@link DomainTable} (the bounded set of
 * domains), {@link OperatorSettings} (what is saved), {@link AnyDomainChoice} (a permit for any of several
 * domains), {@link LedgerLink} (the shared ledger in cluster mode) and {@link GovernorAlerts}.
 */
public final class CrawlGovernor {
    /** Domains one permit call may name at most (a worker's frontier slice). */
    public static final int MAX_PERMIT_DOMAINS = 100;
    /** Domains a snapshot lists at most. */
    public static final int SNAPSHOT_DOMAINS = 500;
    /** Domains tracked at most by default; the least recently used idle one is forgotten first. */
    public static final int DEFAULT_MAX_DOMAINS = 100_000;
    /** Given-up marks and operator minimum delays kept at most by default, each. */
    public static final int DEFAULT_MAX_SETTINGS = 10_000;

    private final GovernorClock clock;
    private final RandomGenerator random;
    private final OperatorSettings settings;
    private final DomainTable domains;
    private final GovernorAlerts alerts = new GovernorAlerts();
    private final LedgerLink link;
    private final AtomicLong ignoredReports = new AtomicLong();

    /**
     * How much the governor keeps at most.
     *
     * @param domains   domains with learned state
     * @param givenUp   given-up marks (saved); past it the oldest is forgotten
     * @param minDelays operator minimum delays (saved); past it a new one is refused
     */
    public record Capacity(int domains, int givenUp, int minDelays) {
        public static final Capacity DEFAULT = new Capacity(DEFAULT_MAX_DOMAINS, DEFAULT_MAX_SETTINGS,
                DEFAULT_MAX_SETTINGS);
    }

    public CrawlGovernor(InstantSource clock, Supplier<GovernorPolicy> policy, RandomGenerator random,
            int maxDomains, Map<String, DomainSettings> saved) {
        this(clock, policy, random, new Capacity(maxDomains, DEFAULT_MAX_SETTINGS, DEFAULT_MAX_SETTINGS), saved);
    }

    /**
     * @param clock      the only source of time
     * @param policy     read on every call; typically {@code () -> engine.policy().governor()}
     * @param random     jitter for the 429 backoff
     * @param capacity   how much to keep at most
     * @param saved      the operator settings and given-up marks saved before a restart
     */
    public CrawlGovernor(InstantSource clock, Supplier<GovernorPolicy> policy, RandomGenerator random,
            Capacity capacity, Map<String, DomainSettings> saved) {
        this.clock = new GovernorClock(clock);
        this.random = random;
        this.settings = new OperatorSettings(saved, capacity.givenUp(), capacity.minDelays());
        this.domains = new DomainTable(capacity.domains(), policy, settings, this.clock);
        this.link = new LedgerLink(this.clock, random);
    }

    public static CrawlGovernor create(InstantSource clock, Supplier<GovernorPolicy> policy) {
        return new CrawlGovernor(clock, policy, RandomGenerator.of("L64X128MixRandom"), DEFAULT_MAX_DOMAINS, Map.of());
    }

    /**
     * May a trusted in-process caller fetch from {@code domain} now? {@link #acquire(String, String)} with no worker
     * named: never held for another worker's turn, and its reports always count.
     *
     * @throws IllegalArgumentException when {@code domain} is not a host name
     */
    public Permit acquire(String domain) {
        return acquire(domain, null);
    }

    /**
     * May {@code worker} fetch from {@code domain} now? Workers wanting one domain take turns (docs/manual/governor.md,
     * "Several workers, one domain"), and a grant is the worker's credit for one report.
     *
     * @param worker who asks (the permit API passes its token's name), or null for a trusted in-process caller
     * @throws IllegalArgumentException when {@code domain} is not a host name
     */
    public Permit acquire(String domain, String worker) {
        GovernorPolicy current = domains.policy();
        return domains.state(DomainNames.normalise(domain), current).acquire(clock.micros(), current, 1, worker);
    }

    /**
     * {@link #acquire}, answered by the shared ledger when there is one ({@link #shareWith}): completes when
     * the ledger answers, or within its deadline on this node's own pace when it does not. Without a ledger
     * it is complete on return.
     *
     * @throws IllegalArgumentException when {@code domain} is not a host name
     */
    public CompletionStage<Permit> acquireAsync(String domain) {
        return acquireAsync(domain, null);
    }

    /** {@link #acquireAsync(String)} for {@code worker} (as {@link #acquire(String, String)}). */
    public CompletionStage<Permit> acquireAsync(String domain, String worker) {
        DomainLedger shared = link.ledger();
        if (shared == null) {
            return CompletableFuture.completedFuture(acquire(domain, worker));
        }
        GovernorPolicy current = domains.policy();
        String name = DomainNames.normalise(domain);
        DomainState state = domains.state(name, current);
        if (!link.reachable(shared)) {
            return CompletableFuture.completedFuture(state.acquire(clock.micros(), current, shared.nodes(), worker));
        }
        return shared.acquire(name, link.context(state, current, worker)).handle((answer, failure) -> {
            DomainLimitException full = DomainLimitException.in(failure);
            if (full != null) {
                link.answered(shared);
                return Permit.waitFor(name, full.waitMicros(), PermitReason.DOMAIN_LIMIT);
            }
            if (failure != null) {
                link.failed(shared, failure);
                return state.acquire(clock.micros(), current, shared.nodes(), worker);
            }
            link.answered(shared);
            mirrorGivenUp(name, state, answer);
            return state.mirrorPermit(answer, clock.micros(), worker);
        });
    }

    /**
     * {@link #report}, judged by the shared ledger when there is one: completes once the cluster has taken it
     * (so a worker told "done" can ask any node and find the floor it reported), or within the ledger's
     * deadline, judged here, when it does not answer.
     *
     * @return where it was judged: {@code LOCAL} (one node), {@code CLUSTER}, or {@code DEGRADED} (here, the
     *         cluster's state unreachable: the other nodes do not know about it)
     */
    public CompletionStage<Pacing.Mode> reportAsync(Feedback feedback) {
        return reportAsync(feedback, null);
    }

    /**
     * {@link #reportAsync(Feedback)} from {@code worker}: ignored (and counted, {@link #ignoredReports()}) unless
     * the worker holds a grant of the domain to report on (docs/manual/governor.md, "Several workers, one domain").
     */
    public CompletionStage<Pacing.Mode> reportAsync(Feedback feedback, String worker) {
        DomainLedger shared = link.ledger();
        if (shared == null) {
            report(feedback, worker);
            return CompletableFuture.completedFuture(Pacing.Mode.LOCAL);
        }
        GovernorPolicy current = domains.policy();
        String domain = DomainNames.normalise(feedback.domain());
        DomainState state = domains.state(domain, current);
        long now = clock.micros();
        Observation seen = state.observe(feedback, now, current);
        if (!link.reachable(shared)) {
            judgeHere(domain, state, seen, feedback, worker, current);
            return CompletableFuture.completedFuture(Pacing.Mode.DEGRADED);
        }
        return shared.report(domain, seen, link.context(state, current, worker)).handle((answer, failure) -> {
            if (DomainLimitException.in(failure) != null) {
                // The cluster keeps no more domains: what the worker saw is this node's alone.
                link.answered(shared);
                judgeHere(domain, state, seen, feedback, worker, current);
                return Pacing.Mode.LOCAL;
            }
            if (failure != null) {
                link.failed(shared, failure);
                judgeHere(domain, state, seen, feedback, worker, current);
                return Pacing.Mode.DEGRADED;
            }
            link.answered(shared);
            if (!answer.credited()) {
                ignoredReports.incrementAndGet();
                state.ignoredElsewhere();
            } else {
                state.heard(feedback, clock.micros());
            }
            state.mirror(answer, clock.micros());
            if (answer.gaveUpNow()) {
                state.mirrorGivenUp(true);
                giveUp(domain, feedback, current); // this node's report gave it up: the cluster's one alert
            } else {
                mirrorGivenUp(domain, state, answer);
            }
            return Pacing.Mode.CLUSTER;
        });
    }

    /**
     * May a worker fetch from any of {@code domains} now? Grants the one whose next slot came (or comes)
     * first, so with more workers than open slots grants go round the domains, each at its own pace; a tie
     * goes to the first named. Refused, the answer names the domain that opens first and its wait. The
     * others count as wanted (demand), as a refused permit does.
     *
     * @throws IllegalArgumentException when the list is empty, longer than {@link #MAX_PERMIT_DOMAINS}, or
     *                                  names something that is not a host name
     */
    public Permit acquireAny(List<String> domains) {
        return acquireAny(domains, null);
    }

    /** {@link #acquireAny(List)} for {@code worker} (as {@link #acquire(String, String)}). */
    public Permit acquireAny(List<String> domains, String worker) {
        GovernorPolicy current = this.domains.policy();
        return AnyDomainChoice.choose(states(domains, current), clock.micros(), current, 1, worker);
    }

    /**
     * {@link #acquireAny}, decided by the shared ledger when there is one (on the cluster's state of every
     * domain named, in one atomic step), else as {@link #acquireAsync} falls back: on this node's copies at
     * {@code 1 / nodes} of each rate.
     *
     * @throws IllegalArgumentException as {@link #acquireAny}
     */
    public CompletionStage<Permit> acquireAnyAsync(List<String> domains) {
        return acquireAnyAsync(domains, null);
    }

    /** {@link #acquireAnyAsync(List)} for {@code worker} (as {@link #acquire(String, String)}). */
    public CompletionStage<Permit> acquireAnyAsync(List<String> domains, String worker) {
        DomainLedger shared = link.ledger();
        if (shared == null) {
            return CompletableFuture.completedFuture(acquireAny(domains, worker));
        }
        GovernorPolicy current = this.domains.policy();
        List<DomainState> states = states(domains, current);
        if (!link.reachable(shared)) {
            return CompletableFuture.completedFuture(AnyDomainChoice.choose(states, clock.micros(), current,
                    shared.nodes(), worker));
        }
        List<String> names = states.stream().map(state -> state.domain).toList();
        List<LedgerContext> contexts = states.stream().map(state -> link.context(state, current, worker)).toList();
        return shared.acquireAny(names, contexts).handle((choice, failure) -> {
            DomainLimitException full = DomainLimitException.in(failure);
            if (full != null) {
                link.answered(shared);
                return Permit.waitFor(names.get(0), full.waitMicros(), PermitReason.DOMAIN_LIMIT);
            }
            if (failure != null || choice.index() < 0 || choice.index() >= states.size()) {
                if (failure != null) {
                    link.failed(shared, failure);
                } else {
                    link.degraded(shared, "the cluster chose no domain asked about");
                }
                return AnyDomainChoice.choose(states, clock.micros(), current, shared.nodes(), worker);
            }
            link.answered(shared);
            long now = clock.micros();
            DomainState chosen = states.get(choice.index());
            mirrorGivenUp(chosen.domain, chosen, choice.answer());
            AnyDomainChoice.othersWanted(states, chosen, now);
            return chosen.mirrorPermit(choice.answer(), now, worker);
        });
    }

    private List<DomainState> states(List<String> names, GovernorPolicy current) {
        List<DomainState> states = new ArrayList<>();
        for (String name : AnyDomainChoice.names(names)) {
            states.add(domains.state(name, current));
        }
        return states;
    }

    /**
     * Keeps the pace of every domain in {@code shared} from now on (cluster mode); the state this node has
     * learned so far stays as its copy, what it paces on when the ledger cannot be reached.
     */
    public void shareWith(DomainLedger shared) {
        link.shareWith(shared);
    }

    /** Where the pace is decided now: this node alone, the cluster, or this node while the cluster is away. */
    public Pacing pacing() {
        return link.pacing();
    }

    /** Learns from what a trusted in-process caller saw: {@link #report(Feedback, String)} with no worker named. */
    public void report(Feedback feedback) {
        report(feedback, null);
    }

    /**
     * Learns from what {@code worker} saw, if it holds a grant of the domain to report on; else the report changes
     * nothing and is counted ({@link #ignoredReports()}).
     *
     * @param worker who reports (the feedback API passes its token's name), or null for a trusted in-process caller
     */
    public void report(Feedback feedback, String worker) {
        GovernorPolicy current = domains.policy();
        String domain = DomainNames.normalise(feedback.domain());
        DomainState state = domains.state(domain, current);
        long now = clock.micros();
        heard(domain, state, state.feedback(feedback, worker, now, current, random), feedback, current);
        domains.keepWhileBlocked(domain, state, now);
    }

    /** Reports ignored since start: their worker held no grant of the domain to report on. */
    public long ignoredReports() {
        return ignoredReports.get();
    }

    private void heard(String domain, DomainState state, DomainState.Heard heard, Feedback feedback,
            GovernorPolicy current) {
        if (heard == DomainState.Heard.IGNORED) {
            ignoredReports.incrementAndGet();
        } else if (heard == DomainState.Heard.GAVE_UP) {
            giveUp(domain, feedback, current);
        }
    }

    /** Sets the domain's current rate; adaptation goes on from there. */
    public DomainView setRate(String domain, double requestsPerSecond) {
        GovernorPolicy current = domains.policy();
        if (!(requestsPerSecond >= current.minRate() && requestsPerSecond <= current.maxRate())) {
            throw new IllegalArgumentException("rate must be between governor.minRate (" + current.minRate()
                    + ") and governor.maxRate (" + current.maxRate() + ") requests per second, was "
                    + requestsPerSecond);
        }
        String name = DomainNames.normalise(domain);
        domains.state(name, current).setOperatorRate(requestsPerSecond);
        shareChange(name, new LedgerChange(LedgerChange.Kind.RATE, requestsPerSecond));
        return view(name);
    }

    /** Sets the operator's minimum gap between two requests to the domain; 0 removes it. Saved. */
    public DomainView setMinDelay(String domain, long millis) {
        if (millis < 0 || millis > Duration.ofDays(1).toMillis()) {
            throw new IllegalArgumentException("minimum delay must be between 0 and 86400000 ms, was " + millis);
        }
        String name = DomainNames.normalise(domain);
        settings.setMinDelay(name, millis);
        domains.state(name, domains.policy()).setOperatorMinDelay(millis * 1_000);
        shareChange(name, new LedgerChange(LedgerChange.Kind.MIN_DELAY, millis * 1_000));
        return view(name);
    }

    /** Forgets what was learned about the domain (rate, blocks, backoff, breaker, statuses). */
    public DomainView reset(String domain) {
        String name = DomainNames.normalise(domain);
        GovernorPolicy current = domains.policy();
        domains.state(name, current).reset(current.initialRate());
        shareChange(name, new LedgerChange(LedgerChange.Kind.RESET, 0));
        return view(name);
    }

    /** Brings a given-up domain back. Saved. */
    public DomainView revive(String domain) {
        String name = DomainNames.normalise(domain);
        domains.state(name, domains.policy()).revive();
        settings.revive(name);
        shareChange(name, new LedgerChange(LedgerChange.Kind.REVIVE, 0));
        return view(name);
    }

    /** The domain as the console shows it, if the governor knows it. */
    public Optional<DomainView> domain(String domain) {
        DomainState state = domains.ifPresent(DomainNames.normalise(domain));
        return state == null ? Optional.empty() : Optional.of(state.view(clock.micros(), GovernorClock::toInstant));
    }

    public GovernorSnapshot snapshot() {
        long now = clock.micros();
        List<DomainView> views = new ArrayList<>();
        for (DomainState state : domains.all()) {
            views.add(state.view(now, GovernorClock::toInstant));
        }
        views.sort(SnapshotOrder.ATTENTION_FIRST);
        List<GovernorAlert> newestFirst = alerts.newestFirst();
        return new GovernorSnapshot(GovernorClock.toInstant(now), domains.estimatedSize(),
                views.subList(0, Math.min(SNAPSHOT_DOMAINS, views.size())), newestFirst, link.pacing(),
                ignoredReports.get());
    }

    /** The saved settings, sorted by domain. */
    public Map<String, DomainSettings> settings() {
        return settings.sorted();
    }

    /** Called after each change of the settings, to save them (read them with {@link #settings()}). */
    public void onSettingsChanged(Runnable listener) {
        settings.onChanged(listener);
    }

    /** Called once per give-up. */
    public void onAlert(Consumer<GovernorAlert> listener) {
        alerts.onAlert(listener);
    }

    private void judgeHere(String domain, DomainState state, Observation seen, Feedback feedback, String worker,
            GovernorPolicy current) {
        long now = clock.micros();
        heard(domain, state, state.judgeHere(feedback, seen, worker, now, current, random), feedback, current);
        domains.keepWhileBlocked(domain, state, now);
    }

    /**
     * The cluster said given up, or revived, and this node did not know: its copy and its saved settings
     * follow (no alert: the node whose report gave the domain up raised it).
     */
    private void mirrorGivenUp(String domain, DomainState state, LedgerAnswer answer) {
        if (answer.givenUp() == state.givenUp()) {
            return;
        }
        state.mirrorGivenUp(answer.givenUp());
        Instant at = clock.instant();
        if (answer.givenUp()) {
            settings.givenUpElsewhere(domain, at, answer.consecutiveErrors());
        } else {
            settings.revive(domain);
        }
    }

    /** An operator's change, made here, for every node: bounded by the ledger's own deadline. */
    private void shareChange(String domain, LedgerChange change) {
        DomainLedger shared = link.ledger();
        if (shared == null) {
            return;
        }
        GovernorPolicy current = domains.policy();
        link.change(shared, domain, change, domains.state(domain, current), current);
    }

    /** This node's judgement gave the domain up: saved, and the one alert. */
    private void giveUp(String domain, Feedback last, GovernorPolicy current) {
        Instant at = clock.instant();
        String message = current.giveUpAfterErrors() + " errors in a row (last: "
                + (last.status() <= 0 ? "no response" : "HTTP " + last.status()) + "); given up until an operator"
                + " revives it";
        settings.giveUp(domain, at, message);
        alerts.raise(at, domain, message);
    }

    private DomainView view(String domain) {
        return domains.state(domain, domains.policy()).view(clock.micros(), GovernorClock::toInstant);
    }
}
