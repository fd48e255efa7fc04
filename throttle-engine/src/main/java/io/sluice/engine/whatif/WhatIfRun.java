package io.sluice.engine.whatif;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.classify.SearchEngineVerifier;
import io.sluice.engine.policy.Policy;
import java.util.PriorityQueue;

/*
 * How a what-if run works, and why it is one code path for live traffic and for old logs.
 *
 * The engine never reads the wall clock: time is injected. So a candidate policy can be run in its own
 * ThrottleEngine on a clock this run moves itself (RunClock), fed requests at the times they were seen:
 * by the live shadow's thread as they happen, or by the replay as fast as it reads a log. Everything
 * else is the same, which is the point: what the console shows and what the CLI prints are counted by
 * the same code (Tally).
 *
 * The run is a small discrete-event simulation. Each request (Observation) is judged by the candidate
 * engine (and, when the baseline is a second policy rather than what really happened, by a baseline
 * engine). A Wait is resumed by a timer at the run's time plus the wait; an admission is completed
 * - live: when the real request completes (the shadow reports it), if the live policy admitted it too;
 * - otherwise after an assumed duration (the log does not say how long a request took, and a request the
 *   live policy refused never ran), the documented approximation of concurrency and load.
 * Timers fire in time order before the next request is judged, so the candidate's in-flight counts are
 * what they would have been at that moment, within the approximation.
 *
 * A request is counted once both sides have a final outcome (a wait resolves later), in the class the
 * candidate put it in. The candidate engine keeps its own bounded client tables, exactly as a live engine
 * would (EngineConfig), and the tally's per-client table is bounded too.
 *
 * Not thread-safe: one thread drives a run (the shadow's feeder, or the replay); readers lock it.
 */

/** A candidate policy run over a stream of observed requests, on its own clock. */
final class WhatIfRun {
    private final RunClock clock;
    private final ThrottleEngine candidate;
    /** The second simulated policy, or null when the baseline is each observation's own outcome. */
    private final ThrottleEngine baseline;
    private final long assumedMillis;
    private final TallySink tallies;
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long sequence;

    /** Where a finished request is counted: one tally (replay) or the current bucket of a window (live). */
    interface TallySink {
        Tally at(long millis);
    }

    private record Timer(long atMillis, long sequence, Runnable action) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer other) {
            int byTime = Long.compare(atMillis, other.atMillis);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /**
     * @param baselinePolicy the policy the candidate is compared with, or null to compare with each
     *                       observation's own outcome
     * @param assumedMillis  how long an admitted request is taken to be in flight when its real duration is
     *                       not known
     * @param verifier       search-engine verification for both engines, or null for none
     */
    WhatIfRun(long startMillis, Policy candidatePolicy, Policy baselinePolicy, EngineConfig config,
              UserAgentClassifier classifier, SearchEngineVerifier verifier, long assumedMillis, TallySink tallies) {
        this.clock = new RunClock(startMillis);
        this.candidate = new ThrottleEngine(config, clock, candidatePolicy, classifier, verifier);
        this.baseline = baselinePolicy == null ? null
                : new ThrottleEngine(config, clock, baselinePolicy, classifier, verifier);
        this.assumedMillis = assumedMillis;
        this.tallies = tallies;
    }

    /**
     * The live front end's browser-pass keys: a request on a pass the live engine accepts is on a pass for the
     * candidate too, so what the candidate's browser check counts is who it would ask, not every pass holder.
     */
    WhatIfRun trustingPassesOf(ThrottleEngine live) {
        candidate.browserPasses().keys(live.browserPasses().keys());
        if (baseline != null) {
            baseline.browserPasses().keys(live.browserPasses().keys());
        }
        return this;
    }

    long now() {
        return clock.millis();
    }

    TallySink tallies() {
        return tallies;
    }

    /** The candidate's engine (its policy and its state), for tests and summaries. */
    ThrottleEngine candidate() {
        return candidate;
    }

    /** Judges one request at its time (or the run's, if that is later: the clock never goes back). */
    void arrive(Observation observation) {
        advanceTo(observation.atMillis);
        observation.arrived = true;
        Trial trial = new Trial(observation);
        if (baseline == null) {
            trial.live = observation.live;
        } else {
            settle(baseline.decide(observation.request), trial, false, false);
        }
        settle(candidate.decide(observation.request), trial, true, false);
    }

    /** The real request of {@code observation} completed at {@code atMillis}: the candidate's admission ends too. */
    void completed(Observation observation, long atMillis) {
        advanceTo(atMillis);
        observation.liveDoneAtMillis = Math.max(atMillis, observation.atMillis);
        Decision.Admission admission = observation.candidateAdmission;
        if (admission != null) {
            observation.candidateAdmission = null;
            admission.complete(200, -1);
        }
    }

    /** Fires every timer due by {@code millis}, in time order, and moves the clock there. */
    void advanceTo(long millis) {
        Timer next;
        while ((next = timers.peek()) != null && next.atMillis <= millis) {
            timers.poll();
            clock.advanceTo(next.atMillis);
            next.action.run();
        }
        clock.advanceTo(millis);
    }

    /** Runs the clock on until nothing is pending (waits resolved, admissions completed): the end of a replay. */
    void finish() {
        while (!timers.isEmpty()) {
            Timer next = timers.poll();
            clock.advanceTo(next.atMillis);
            next.action.run();
        }
    }

    private void schedule(long atMillis, Runnable action) {
        timers.add(new Timer(atMillis, sequence++, action));
    }

    private void settle(Decision decision, Trial trial, boolean candidateSide, boolean waited) {
        if (candidateSide && trial.client == null) {
            trial.client = decision.client();
        }
        if (decision instanceof Decision.Wait wait) {
            schedule(clock.millis() + wait.waitMillis(),
                    () -> settle(wait.deferral().resume(), trial, candidateSide, true));
            return;
        }
        if (decision instanceof Decision.Admit admit) {
            admitted(admit.admission(), trial.observation, candidateSide);
        }
        Outcome outcome = Outcome.of(decision, waited);
        if (candidateSide) {
            trial.candidate = outcome;
        } else {
            trial.live = outcome;
        }
        if (trial.live != null && trial.candidate != null) {
            tallies.at(clock.millis()).record(trial.observation.atMillis, trial.client, trial.live, trial.candidate);
        }
    }

    private void admitted(Decision.Admission admission, Observation observation, boolean candidateSide) {
        if (candidateSide && observation.liveCompletes) {
            if (observation.liveDoneAtMillis < 0) {
                observation.candidateAdmission = admission; // ends when the real request does
                return;
            }
            long realDuration = observation.liveDoneAtMillis - observation.atMillis;
            schedule(clock.millis() + realDuration, () -> admission.complete(200, -1));
            return;
        }
        schedule(clock.millis() + assumedMillis, () -> admission.complete(200, -1));
    }

    /** One request on its way through both sides. */
    private static final class Trial {
        final Observation observation;
        ClientInfo client;
        Outcome live;
        Outcome candidate;

        Trial(Observation observation) {
            this.observation = observation;
        }
    }
}
