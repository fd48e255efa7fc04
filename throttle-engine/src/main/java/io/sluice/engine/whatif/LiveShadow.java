package io.sluice.engine.whatif;

import io.sluice.engine.Decision;
import io.sluice.engine.DecisionTap;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Request;
import io.sluice.engine.RequestCost;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ShadowSummary;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/*
 * The shadow on live traffic, and what it costs the request path.
 *
 * The live engine calls tapped() with every decision it makes. The request path does no judging: it wraps
 * the request, its time and its outcome in an Observation and offers it to a bounded lock-free queue
 * (JCTools' MPSC array queue: one compare-and-set). One thread per installed candidate drains the queue
 * into a WhatIfRun, the same code the replay uses. When the queue is full the observation is dropped and
 * counted (the report says how many), never waited for: a shadow must not slow the site it watches.
 *
 * An admitted request's completion is the second thing the shadow needs (the candidate's concurrency and
 * load end when the real request does): the admission handed back to the caller is wrapped, and its
 * complete() offers the same wrapper again. The wrapper is the request's observation too, so an
 * admitted request costs the request path one object besides the decision that carries it (there were
 * three: the observation, the wrapper and a completion record). A completion is never dropped (it
 * would leave a candidate slot taken for ever): if the queue is full it goes to an unbounded overflow
 * queue, which stays small because only observations that were queued can have completions, and their
 * number is bounded by the queue and the requests in flight. A request whose observation was dropped is handed
 * back unwrapped.
 *
 * A wait (load deferral, progressive delay) is not an outcome yet: the deferral is wrapped, and its
 * resume() reports the final decision, with the time the request first arrived.
 */

/**
 * A candidate policy judging live traffic beside the live one, deciding nothing. Install, report and
 * remove are thread-safe; the request path only queues.
 */
public final class LiveShadow implements DecisionTap, AutoCloseable {
    /** How long a request the live policy refused is taken to run under a candidate that admits it. */
    public static final long ASSUMED_MILLIS = 100;
    static final int QUEUE_CAPACITY = 1 << 16;
    static final int MAX_CLIENTS_PER_MINUTE = 20_000;
    private static final int BATCH = 4096;
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final ThrottleEngine live;
    private final EngineConfig config;
    private final UserAgentClassifier classifier;
    private final SearchEngineVerifier verifier;
    private final InstantSource clock;
    private final boolean ownThread;
    private final int queueCapacity;
    private volatile Session session;

    /** The installed candidate. */
    public record Candidate(Policy policy, Instant installedAt, long basedOnVersion) {
    }

    /**
     * @param live       the engine whose decisions are watched
     * @param config     sizing of the candidate's engine (as the live one: its state is bounded the same way)
     * @param classifier and {@code verifier} (null: none): the live engine's, so both classify alike
     * @param clock      the live engine's clock
     */
    public LiveShadow(ThrottleEngine live, EngineConfig config, UserAgentClassifier classifier,
                      SearchEngineVerifier verifier, InstantSource clock) {
        this(live, config, classifier, verifier, clock, true);
    }

    /** @param ownThread false for tests, which feed the run with {@link #drain()} */
    LiveShadow(ThrottleEngine live, EngineConfig config, UserAgentClassifier classifier,
               SearchEngineVerifier verifier, InstantSource clock, boolean ownThread) {
        this(live, config, classifier, verifier, clock, ownThread, QUEUE_CAPACITY);
    }

    /** @param queueCapacity requests queued for the shadow's thread before more are dropped */
    LiveShadow(ThrottleEngine live, EngineConfig config, UserAgentClassifier classifier,
               SearchEngineVerifier verifier, InstantSource clock, boolean ownThread, int queueCapacity) {
        this.queueCapacity = queueCapacity;
        this.live = Objects.requireNonNull(live, "live");
        this.config = Objects.requireNonNull(config, "config");
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        this.verifier = verifier;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ownThread = ownThread;
    }

    /**
     * Installs {@code policy} as the shadow, replacing any (whose counts are dropped). Validated like a
     * live policy.
     *
     * @throws io.sluice.engine.policy.PolicyValidationException naming every bad field; nothing changed
     */
    public synchronized Candidate install(Policy policy) {
        long now = clock.millis();
        Candidate candidate = new Candidate(policy, Instant.ofEpochMilli(now), live.policy().version());
        Session next = new Session(candidate, new WhatIfRun(now, policy, null, config, classifier, verifier,
                ASSUMED_MILLIS, new RollingTallies(MAX_CLIENTS_PER_MINUTE)).trustingPassesOf(live));
        Session previous = session;
        session = next;
        live.tap(this);
        if (previous != null) {
            previous.stop();
        }
        if (ownThread) {
            next.start();
        }
        return candidate;
    }

    /** Removes the shadow; returns what was installed, or null when nothing was. */
    public synchronized Candidate remove() {
        Session previous = session;
        if (previous == null) {
            return null;
        }
        session = null;
        live.tap(null);
        previous.stop();
        return previous.candidate;
    }

    /** The installed candidate, or null. */
    public Candidate candidate() {
        Session current = session;
        return current == null ? null : current.candidate;
    }

    /**
     * The report over the recent window, or null when no shadow is installed.
     *
     * @param limit the most differing clients listed
     */
    public WhatIfReport report(int limit) {
        Session current = session;
        return current == null ? null : current.report(limit);
    }

    @Override
    public ShadowSummary summary(long nowMillis) {
        Session current = session;
        return current == null ? null : current.summary();
    }

    @Override
    public Decision tapped(Request request, long atMillis, Decision decision) {
        Session current = session;
        return current == null ? decision : current.observe(request, atMillis, decision, false);
    }

    /** Feeds everything queued to the run on the caller's thread, then fires the timers due now (tests). */
    void drain() {
        Session current = session;
        if (current != null) {
            current.feedAll();
        }
    }

    @Override
    public void close() {
        remove();
    }

    /** One installed candidate: its run, its queue and the thread that feeds one into the other. */
    private final class Session {
        final Candidate candidate;
        final WhatIfRun run;
        final RollingTallies tallies;
        final MpscAtomicArrayQueue<Observation> queue = new MpscAtomicArrayQueue<>(queueCapacity);
        /** Completions that found the queue full (never dropped: the candidate's admission must end). */
        final ConcurrentLinkedQueue<TappedAdmission> overflow = new ConcurrentLinkedQueue<>();
        /** Overflow completions whose arrival was still in the queue when they were looked at. */
        final ArrayDeque<TappedAdmission> early = new ArrayDeque<>();
        final LongAdder dropped = new LongAdder();
        private volatile boolean running = true;
        private Thread feeder;

        Session(Candidate candidate, WhatIfRun run) {
            this.candidate = candidate;
            this.run = run;
            this.tallies = (RollingTallies) run.tallies();
        }

        Decision observe(Request request, long atMillis, Decision decision, boolean waited) {
            if (decision instanceof Decision.Refuse) {
                offer(new Observation(atMillis, request, Outcome.of(decision, waited), false));
                return decision;
            }
            if (decision instanceof Decision.Admit admit) {
                TappedAdmission observed = new TappedAdmission(atMillis, request, waited, admit.admission(), this);
                if (!offer(observed)) {
                    return decision;
                }
                return new Decision.Admit(admit.client(), observed, admit.rateLimit());
            }
            Decision.Wait wait = (Decision.Wait) decision;
            return new Decision.Wait(wait.client(), wait.reason(), wait.waitMillis(),
                    new TappedDeferral(wait.deferral(), request, atMillis, this));
        }

        private boolean offer(Observation observation) {
            if (queue.offer(observation)) {
                return true;
            }
            dropped.increment();
            return false;
        }

        /**
         * The same object goes through the queue a second time: the queue is FIFO and its arrival was queued
         * before the request was admitted, so the run meets it first as an arrival, then as the completion.
         */
        void completed(TappedAdmission observed) {
            observed.completedAtMillis = clock.millis();
            if (!queue.offer(observed)) {
                overflow.add(observed);
            }
        }

        void start() {
            feeder = new Thread(this::feedLoop, "sluice-shadow");
            feeder.setDaemon(true);
            feeder.start();
        }

        void stop() {
            running = false;
            if (feeder != null) {
                LockSupport.unpark(feeder);
            }
        }

        private void feedLoop() {
            while (running) {
                int fed;
                synchronized (run) {
                    fed = feed(BATCH);
                    if (fed == 0) {
                        run.advanceTo(clock.millis()); // waits and assumed completions end even without traffic
                    }
                }
                if (fed == 0) {
                    LockSupport.parkNanos(IDLE_NANOS);
                }
            }
        }

        void feedAll() {
            synchronized (run) {
                while (feed(BATCH) > 0) {
                    // until the queue is empty
                }
                run.advanceTo(clock.millis());
            }
        }

        /** Under the run's lock. */
        private int feed(int limit) {
            int fed = queue.drain(this::handle, limit);
            int late = early.size();
            for (int i = 0; i < late; i++) {
                completeOrWait(early.poll());
            }
            TappedAdmission completion;
            while ((completion = overflow.poll()) != null) {
                completeOrWait(completion);
                fed++;
            }
            return fed;
        }

        /** From the queue: an observation's first passage is its arrival, an admission's second its completion. */
        private void handle(Observation observation) {
            if (!observation.arrived) {
                run.arrive(observation);
            } else {
                run.completed(observation, ((TappedAdmission) observation).completedAtMillis);
            }
        }

        /** From the overflow, where a completion may overtake its own arrival, still in the queue. */
        private void completeOrWait(TappedAdmission completion) {
            if (completion.arrived) {
                run.completed(completion, completion.completedAtMillis);
            } else {
                early.add(completion);
            }
        }

        WhatIfReport report(int limit) {
            synchronized (run) {
                long now = Math.max(run.now(), clock.millis());
                run.advanceTo(now);
                Tally window = tallies.window(now);
                long from = Math.max(candidate.installedAt().toEpochMilli(), RollingTallies.windowStart(now));
                return window.report("live", "the live policy's decisions (version " + live.policy().version()
                                + " now; " + candidate.basedOnVersion() + " when the shadow was installed)",
                        Instant.ofEpochMilli(from), Instant.ofEpochMilli(now), limit, dropped.sum(), 0, notes());
            }
        }

        private List<String> notes() {
            List<String> notes = new ArrayList<>();
            notes.add("Counts cover the last " + RollingTallies.MINUTES + " minutes (whole minutes) since the shadow "
                    + "was installed; a class is the candidate's classification of the request.");
            notes.add("A request the live policy refused never ran: under a candidate that admits it, it is taken "
                    + "to be in flight " + ASSUMED_MILLIS + " ms (approximate concurrency and load).");
            if (dropped.sum() > 0) {
                notes.add(dropped.sum() + " requests were not seen by the shadow because it could not keep up: the "
                        + "candidate's counts are lower than they would be.");
            }
            return notes;
        }

        ShadowSummary summary() {
            synchronized (run) {
                long now = Math.max(run.now(), clock.millis());
                long[] totals = tallies.totals(now);
                long from = Math.max(candidate.installedAt().toEpochMilli(), RollingTallies.windowStart(now));
                return new ShadowSummary(candidate.installedAt(), (now - from) / 1000, totals[0], totals[1],
                        totals[2], (int) totals[3], (int) totals[4], dropped.sum());
            }
        }
    }

    /**
     * The live admission, which also tells the shadow when the real request ended (once); it is the request's
     * observation too, so an admitted request costs the request path this one object and the decision around it.
     */
    private static final class TappedAdmission extends Observation implements Decision.Admission {
        private static final VarHandle DONE;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(TappedAdmission.class, "done", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Decision.Admission inner;
        private final Session session;
        @SuppressWarnings("unused")
        private volatile int done;
        /** When the real request ended: written before the second passage through the queue, which publishes it. */
        long completedAtMillis;

        TappedAdmission(long atMillis, Request request, boolean waited, Decision.Admission inner, Session session) {
            super(atMillis, request, waited ? Outcome.DELAYED : Outcome.ADMIT, true);
            this.inner = inner;
            this.session = session;
        }

        @Override
        public void complete(int status, long upstreamLatencyNanos) {
            complete(status, upstreamLatencyNanos, null);
        }

        /** The request's cost goes on to the live admission: a shadow watching changes nothing the engine counts. */
        @Override
        public void complete(int status, long upstreamLatencyNanos, RequestCost cost) {
            inner.complete(status, upstreamLatencyNanos, cost);
            if (DONE.compareAndSet(this, 0, 1)) {
                session.completed(this);
            }
        }
    }

    /** The live deferral, which reports the request's final outcome when it resumes. */
    private static final class TappedDeferral implements Decision.Deferral {
        private final Decision.Deferral inner;
        private final Request request;
        private final long arrivedMillis;
        private final Session session;

        TappedDeferral(Decision.Deferral inner, Request request, long arrivedMillis, Session session) {
            this.inner = inner;
            this.request = request;
            this.arrivedMillis = arrivedMillis;
            this.session = session;
        }

        @Override
        public Decision resume() {
            return session.observe(request, arrivedMillis, inner.resume(), true);
        }

        @Override
        public void cancel() {
            inner.cancel();
        }
    }
}
