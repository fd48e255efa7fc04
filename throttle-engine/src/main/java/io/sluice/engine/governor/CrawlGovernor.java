package io.sluice.engine.governor;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.engine.policy.GovernorPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    static final int MAX_ALERTS = 100;
    /** A domain nobody asked about for this long is forgotten (unless it is blocked longer). */
    static final Duration IDLE = Duration.ofHours(1);
    /** An operator's change waits at most this for the shared ledger (which gives up at its own deadline). */
    static final Duration LEDGER_PATIENCE = Duration.ofSeconds(2);
    private static final System.Logger LOG = System.getLogger(CrawlGovernor.class.getName());

    private final InstantSource clock;
    private final Supplier<GovernorPolicy> policy;
    private final RandomGenerator random;
    private final Cache<String, DomainState> domains;
    private final Map<String, DomainSettings> settings = new ConcurrentHashMap<>();
    private final Deque<GovernorAlert> alerts = new ArrayDeque<>();
    private final AtomicLong alertIds = new AtomicLong();
    private final Capacity capacity;
    private final List<Runnable> settingsListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<GovernorAlert>> alertListeners = new CopyOnWriteArrayList<>();
    private volatile GovernorPolicy lastPolicy;
    private volatile DomainLedger ledger;
    private volatile Pacing pacing;

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
        this.clock = clock;
        this.capacity = capacity;
        this.policy = policy;
        this.random = random;
        this.lastPolicy = policy.get();
        this.pacing = Pacing.local(clock.instant());
        saved.forEach((domain, value) -> {
            if (!value.isNone()) {
                settings.put(DomainNames.normalise(domain), value);
            }
        });
        this.domains = Caffeine.newBuilder()
                .maximumSize(capacity.domains())
                // Maintenance (eviction) on the calling thread: the bound holds after every call, and the
                // governor starts no threads of its own.
                .executor(Runnable::run)
                .ticker(() -> micros() * 1_000)
                .expireAfter(new IdleUnlessBlocked())
                .build();
    }

    public static CrawlGovernor create(InstantSource clock, Supplier<GovernorPolicy> policy) {
        return new CrawlGovernor(clock, policy, RandomGenerator.of("L64X128MixRandom"), DEFAULT_MAX_DOMAINS, Map.of());
    }

    /**
     * May a worker fetch from {@code domain} now?
     *
     * @throws IllegalArgumentException when {@code domain} is not a host name
     */
    public Permit acquire(String domain) {
        GovernorPolicy current = currentPolicy();
        return state(DomainNames.normalise(domain), current).acquire(micros(), current);
    }

    /**
     * {@link #acquire}, answered by the shared ledger when there is one ({@link #shareWith}): completes when
     * the ledger answers, or within its deadline on this node's own pace when it does not. Without a ledger
     * it is complete on return.
     *
     * @throws IllegalArgumentException when {@code domain} is not a host name
     */
    public CompletionStage<Permit> acquireAsync(String domain) {
        DomainLedger shared = ledger;
        if (shared == null) {
            return CompletableFuture.completedFuture(acquire(domain));
        }
        GovernorPolicy current = currentPolicy();
        String name = DomainNames.normalise(domain);
        DomainState state = state(name, current);
        if (!shared.available()) {
            degraded(shared, shared.unavailableReason());
            return CompletableFuture.completedFuture(state.acquire(micros(), current, shared.nodes()));
        }
        return shared.acquire(name, context(state, current)).handle((answer, failure) -> {
            if (failure != null) {
                degraded(shared, describe(failure));
                return state.acquire(micros(), current, shared.nodes());
            }
            clustered(shared);
            mirrorGivenUp(name, state, answer);
            return state.mirrorPermit(answer, micros());
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
        DomainLedger shared = ledger;
        if (shared == null) {
            report(feedback);
            return CompletableFuture.completedFuture(Pacing.Mode.LOCAL);
        }
        GovernorPolicy current = currentPolicy();
        String domain = DomainNames.normalise(feedback.domain());
        DomainState state = state(domain, current);
        long now = micros();
        Observation seen = state.observe(feedback, now, current);
        if (!shared.available()) {
            degraded(shared, shared.unavailableReason());
            judgeHere(domain, state, seen, feedback, current);
            return CompletableFuture.completedFuture(Pacing.Mode.DEGRADED);
        }
        return shared.report(domain, seen, context(state, current)).handle((answer, failure) -> {
            if (failure != null) {
                degraded(shared, describe(failure));
                judgeHere(domain, state, seen, feedback, current);
                return Pacing.Mode.DEGRADED;
            }
            clustered(shared);
            state.mirror(answer, micros());
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
        GovernorPolicy current = currentPolicy();
        return anyOf(states(domains, current), micros(), current, 1);
    }

    /**
     * {@link #acquireAny}, decided by the shared ledger when there is one (on the cluster's state of every
     * domain named, in one atomic step), else as {@link #acquireAsync} falls back: on this node's copies at
     * {@code 1 / nodes} of each rate.
     *
     * @throws IllegalArgumentException as {@link #acquireAny}
     */
    public CompletionStage<Permit> acquireAnyAsync(List<String> domains) {
        DomainLedger shared = ledger;
        if (shared == null) {
            return CompletableFuture.completedFuture(acquireAny(domains));
        }
        GovernorPolicy current = currentPolicy();
        List<DomainState> states = states(domains, current);
        if (!shared.available()) {
            degraded(shared, shared.unavailableReason());
            return CompletableFuture.completedFuture(anyOf(states, micros(), current, shared.nodes()));
        }
        List<String> names = states.stream().map(state -> state.domain).toList();
        List<LedgerContext> contexts = states.stream().map(state -> context(state, current)).toList();
        return shared.acquireAny(names, contexts).handle((choice, failure) -> {
            if (failure != null || choice.index() < 0 || choice.index() >= states.size()) {
                degraded(shared, failure != null ? describe(failure) : "the cluster chose no domain asked about");
                return anyOf(states, micros(), current, shared.nodes());
            }
            clustered(shared);
            long now = micros();
            DomainState chosen = states.get(choice.index());
            mirrorGivenUp(chosen.domain, chosen, choice.answer());
            for (DomainState other : states) {
                if (other != chosen) {
                    other.wanted(now);
                }
            }
            return chosen.mirrorPermit(choice.answer(), now);
        });
    }

    private List<DomainState> states(List<String> domains, GovernorPolicy current) {
        if (domains == null || domains.isEmpty()) {
            throw new IllegalArgumentException("name at least one domain");
        }
        if (domains.size() > MAX_PERMIT_DOMAINS) {
            throw new IllegalArgumentException("at most " + MAX_PERMIT_DOMAINS + " domains in one permit call, was "
                    + domains.size());
        }
        LinkedHashSet<String> names = new LinkedHashSet<>();
        for (String domain : domains) {
            names.add(DomainNames.normalise(domain));
        }
        List<DomainState> states = new ArrayList<>(names.size());
        for (String name : names) {
            states.add(state(name, current));
        }
        return states;
    }

    /**
     * The earliest ready of {@code states} gets the permit; one that loses its slot to another worker between
     * the look and the take (or whose breaker has no trial left) passes it to the next ready one.
     */
    private static Permit anyOf(List<DomainState> states, long now, GovernorPolicy policy, int share) {
        List<DomainState> order = new ArrayList<>(states.size());
        List<Long> readyAt = new ArrayList<>(states.size());
        for (DomainState state : states) {
            long at = state.readyAt();
            int i = 0;
            while (i < order.size() && readyAt.get(i) <= at) {
                i++; // stable: a tie keeps the order the worker gave
            }
            order.add(i, state);
            readyAt.add(i, at);
        }
        Permit answer = null;
        DomainState granted = null;
        for (int i = 0; i < order.size(); i++) {
            if (answer != null && readyAt.get(i) > now) {
                break;
            }
            Permit permit = order.get(i).acquire(now, policy, share);
            if (answer == null || permit.granted()) {
                answer = permit;
            }
            if (permit.granted()) {
                granted = order.get(i);
                break;
            }
        }
        for (DomainState state : states) {
            if (state != granted) {
                state.wanted(now);
            }
        }
        return answer;
    }

    /**
     * Keeps the pace of every domain in {@code shared} from now on (cluster mode); the state this node has
     * learned so far stays as its copy, what it paces on when the ledger cannot be reached.
     */
    public void shareWith(DomainLedger shared) {
        this.ledger = shared;
        Pacing now = new Pacing(Pacing.Mode.CLUSTER, shared.nodes(), "pace shared by the cluster", clock.instant());
        this.pacing = now;
    }

    /** Where the pace is decided now: this node alone, the cluster, or this node while the cluster is away. */
    public Pacing pacing() {
        return pacing;
    }

    /** Learns from what a worker saw. */
    public void report(Feedback feedback) {
        GovernorPolicy current = currentPolicy();
        String domain = DomainNames.normalise(feedback.domain());
        DomainState state = state(domain, current);
        long now = micros();
        if (state.feedback(feedback, now, current, random)) {
            giveUp(domain, feedback, current);
        }
        long blocked = state.blockedUntil();
        if (blocked > now) {
            domains.policy().expireVariably().ifPresent(expiry -> expiry.setExpiresAfter(domain,
                    Duration.ofNanos((blocked - now) * 1_000).plus(IDLE)));
        }
    }

    /** Sets the domain's current rate; adaptation goes on from there. */
    public DomainView setRate(String domain, double requestsPerSecond) {
        GovernorPolicy current = currentPolicy();
        if (!(requestsPerSecond >= current.minRate() && requestsPerSecond <= current.maxRate())) {
            throw new IllegalArgumentException("rate must be between governor.minRate (" + current.minRate()
                    + ") and governor.maxRate (" + current.maxRate() + ") requests per second, was "
                    + requestsPerSecond);
        }
        String name = DomainNames.normalise(domain);
        state(name, current).setOperatorRate(requestsPerSecond);
        shareChange(name, new LedgerChange(LedgerChange.Kind.RATE, requestsPerSecond));
        return view(name);
    }

    /** Sets the operator's minimum gap between two requests to the domain; 0 removes it. Saved. */
    public DomainView setMinDelay(String domain, long millis) {
        if (millis < 0 || millis > Duration.ofDays(1).toMillis()) {
            throw new IllegalArgumentException("minimum delay must be between 0 and 86400000 ms, was " + millis);
        }
        String name = DomainNames.normalise(domain);
        synchronized (settings) {
            boolean adds = millis > 0 && settings.getOrDefault(name, DomainSettings.NONE).minDelayMillis() == 0;
            if (adds && count(DomainSettings::hasMinDelay) >= capacity.minDelays()) {
                throw new IllegalArgumentException("at most " + capacity.minDelays() + " domains can have a "
                        + "minimum delay; remove one (set it to 0) first");
            }
            updateSettings(name, current -> current.withMinDelay(millis));
        }
        state(name, currentPolicy()).setOperatorMinDelay(millis * 1_000);
        shareChange(name, new LedgerChange(LedgerChange.Kind.MIN_DELAY, millis * 1_000));
        return view(name);
    }

    /** Forgets what was learned about the domain (rate, blocks, backoff, breaker, statuses). */
    public DomainView reset(String domain) {
        String name = DomainNames.normalise(domain);
        GovernorPolicy current = currentPolicy();
        state(name, current).reset(current.initialRate());
        shareChange(name, new LedgerChange(LedgerChange.Kind.RESET, 0));
        return view(name);
    }

    /** Brings a given-up domain back. Saved. */
    public DomainView revive(String domain) {
        String name = DomainNames.normalise(domain);
        state(name, currentPolicy()).revive();
        synchronized (settings) {
            updateSettings(name, current -> current.withGivenUp(null, null));
        }
        shareChange(name, new LedgerChange(LedgerChange.Kind.REVIVE, 0));
        return view(name);
    }

    /** The domain as the console shows it, if the governor knows it. */
    public Optional<DomainView> domain(String domain) {
        String name = DomainNames.normalise(domain);
        DomainState state = domains.getIfPresent(name);
        return state == null ? Optional.empty() : Optional.of(state.view(micros(), this::instant));
    }

    public GovernorSnapshot snapshot() {
        long now = micros();
        List<DomainView> views = new ArrayList<>();
        for (DomainState state : domains.asMap().values()) {
            views.add(state.view(now, this::instant));
        }
        views.sort(Comparator.comparingInt(CrawlGovernor::attention).reversed()
                .thenComparing(Comparator.comparingLong(DomainView::granted).reversed())
                .thenComparing(DomainView::domain));
        List<GovernorAlert> newestFirst;
        synchronized (alerts) {
            newestFirst = new ArrayList<>(alerts);
        }
        return new GovernorSnapshot(instant(now), domains.estimatedSize(),
                views.subList(0, Math.min(SNAPSHOT_DOMAINS, views.size())), newestFirst, pacing);
    }

    /** The saved settings, sorted by domain. */
    public Map<String, DomainSettings> settings() {
        return new TreeMap<>(settings);
    }

    /** Called after each change of the settings, to save them (read them with {@link #settings()}). */
    public void onSettingsChanged(Runnable listener) {
        settingsListeners.add(listener);
    }

    /** Called once per give-up. */
    public void onAlert(Consumer<GovernorAlert> listener) {
        alertListeners.add(listener);
    }

    private void judgeHere(String domain, DomainState state, Observation seen, Feedback feedback,
            GovernorPolicy current) {
        long now = micros();
        if (state.judge(seen, now, current, random)) {
            giveUp(domain, feedback, current);
        }
        long blocked = state.blockedUntil();
        if (blocked > now) {
            domains.policy().expireVariably().ifPresent(expiry -> expiry.setExpiresAfter(domain,
                    Duration.ofNanos((blocked - now) * 1_000).plus(IDLE)));
        }
    }

    private LedgerContext context(DomainState state, GovernorPolicy current) {
        double jitter;
        synchronized (random) {
            jitter = random.nextDouble();
        }
        return new LedgerContext(current, state.floorMicros(), state.givenUp(), jitter);
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
        synchronized (settings) {
            updateSettings(domain, value -> answer.givenUp()
                    ? value.withGivenUp(at, "given up by another node of the cluster (" + answer.consecutiveErrors()
                            + " errors in a row); given up until an operator revives it")
                    : value.withGivenUp(null, null));
        }
    }

    /** An operator's change, made here, for every node: bounded by the ledger's own deadline. */
    private void shareChange(String domain, LedgerChange change) {
        DomainLedger shared = ledger;
        if (shared == null) {
            return;
        }
        GovernorPolicy current = currentPolicy();
        DomainState state = state(domain, current);
        if (!shared.available()) {
            degraded(shared, shared.unavailableReason());
            return;
        }
        try {
            LedgerAnswer answer = shared.change(domain, change, context(state, current)).toCompletableFuture()
                    .get(LEDGER_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            clustered(shared);
            state.mirror(answer, micros());
        } catch (ExecutionException | TimeoutException e) {
            degraded(shared, describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void clustered(DomainLedger shared) {
        Pacing was = pacing;
        if (was.mode() != Pacing.Mode.CLUSTER || was.nodes() != shared.nodes()) {
            pacing = new Pacing(Pacing.Mode.CLUSTER, shared.nodes(), "pace shared by the cluster",
                    was.mode() == Pacing.Mode.CLUSTER ? was.since() : clock.instant());
            if (was.mode() != Pacing.Mode.CLUSTER) {
                LOG.log(System.Logger.Level.INFO, "crawl governor: pacing with the cluster again");
            }
        }
    }

    private void degraded(DomainLedger shared, String reason) {
        Pacing was = pacing;
        if (was.mode() != Pacing.Mode.DEGRADED || was.nodes() != shared.nodes()) {
            int nodes = shared.nodes();
            pacing = new Pacing(Pacing.Mode.DEGRADED, nodes, reason + ": pacing alone at 1/" + nodes
                    + " of each domain's rate", was.mode() == Pacing.Mode.DEGRADED ? was.since() : clock.instant());
            if (was.mode() != Pacing.Mode.DEGRADED) {
                LOG.log(System.Logger.Level.WARNING, "crawl governor: DEGRADED (" + reason + "): pacing alone at 1/"
                        + nodes + " of each domain's rate until the cluster's state answers again");
            }
        }
    }

    private static String describe(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return cause instanceof TimeoutException ? "the cluster's state did not answer in time"
                : message == null ? cause.getClass().getSimpleName() : message;
    }

    private static int attention(DomainView view) {
        if (view.givenUp()) {
            return 3;
        }
        if (view.breaker() != BreakerState.CLOSED) {
            return 2;
        }
        return view.blockedUntil() != null ? 1 : 0;
    }

    private void giveUp(String domain, Feedback last, GovernorPolicy current) {
        Instant at = clock.instant();
        String message = current.giveUpAfterErrors() + " errors in a row (last: "
                + (last.status() <= 0 ? "no response" : "HTTP " + last.status()) + "); given up until an operator"
                + " revives it";
        synchronized (settings) {
            updateSettings(domain, value -> value.withGivenUp(at, message));
            if (count(DomainSettings::givenUp) > capacity.givenUp()) {
                settings.entrySet().stream().filter(entry -> entry.getValue().givenUp())
                        .min(Comparator.comparing((Map.Entry<String, DomainSettings> entry) ->
                                entry.getValue().givenUpAt()))
                        .ifPresent(oldest -> updateSettings(oldest.getKey(), value -> value.withGivenUp(null, null)));
            }
        }
        GovernorAlert alert = new GovernorAlert(alertIds.incrementAndGet(), at, domain, message);
        synchronized (alerts) {
            alerts.addFirst(alert);
            while (alerts.size() > MAX_ALERTS) {
                alerts.removeLast();
            }
        }
        alertListeners.forEach(listener -> listener.accept(alert));
    }

    private void updateSettings(String domain, java.util.function.UnaryOperator<DomainSettings> change) {
        settings.compute(domain, (key, value) -> {
            DomainSettings next = change.apply(value == null ? DomainSettings.NONE : value);
            return next.isNone() ? null : next;
        });
        settingsListeners.forEach(Runnable::run);
    }

    private long count(java.util.function.Predicate<DomainSettings> which) {
        return settings.values().stream().filter(which).count();
    }

    private DomainView view(String domain) {
        return state(domain, currentPolicy()).view(micros(), this::instant);
    }

    private DomainState state(String domain, GovernorPolicy current) {
        return domains.get(domain, name -> {
            DomainSettings saved = settings.getOrDefault(name, DomainSettings.NONE);
            return new DomainState(name, current.initialRate(), saved.minDelayMillis() * 1_000, saved.givenUp(),
                    micros());
        });
    }

    /** The policy for this call; after a live edit, every learned rate is first brought inside its bounds. */
    private GovernorPolicy currentPolicy() {
        GovernorPolicy current = policy.get();
        if (current != lastPolicy) {
            lastPolicy = current;
            domains.asMap().values().forEach(state -> state.clamp(current));
        }
        return current;
    }

    private long micros() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000);
    }

    /** Forget a domain an hour after its last use, but never while a Retry-After or backoff holds. */
    private static final class IdleUnlessBlocked implements Expiry<String, DomainState> {
        @Override
        public long expireAfterCreate(String key, DomainState value, long currentTime) {
            return IDLE.toNanos();
        }

        @Override
        public long expireAfterUpdate(String key, DomainState value, long currentTime, long currentDuration) {
            return currentDuration;
        }

        @Override
        public long expireAfterRead(String key, DomainState value, long currentTime, long currentDuration) {
            long blockedNanos = (value.blockedUntil() - currentTime / 1_000) * 1_000;
            return Math.max(IDLE.toNanos(), blockedNanos + IDLE.toNanos());
        }
    }
}
