package io.sluice.engine.whatif;

import io.sluice.engine.Decision;
import io.sluice.engine.Request;

/**
 * One request as a what-if run sees it: when it arrived, what it was, and (when the baseline is what
 * really happened rather than a second simulated policy) its outcome. The mutable fields belong to the
 * run's thread. Not final: the live shadow's admission wrapper is itself the observation of its request, so
 * watching an admitted request costs one object ({@link LiveShadow}).
 */
class Observation {
    final long atMillis;
    final Request request;
    /** What the live policy did, or null when the baseline is simulated. */
    final Outcome live;
    /** True when the request's real completion will be reported ({@link WhatIfRun#completed}). */
    final boolean liveCompletes;

    /** Set when the real request completed (run thread only). */
    long liveDoneAtMillis = -1;
    /** The candidate's admission of this request, waiting for the real request to complete (run thread only). */
    Decision.Admission candidateAdmission;
    /** Set once the run has judged it (run thread only): a completion can only follow its arrival. */
    boolean arrived;

    Observation(long atMillis, Request request, Outcome live, boolean liveCompletes) {
        this.atMillis = atMillis;
        this.request = request;
        this.live = live;
        this.liveCompletes = liveCompletes;
    }
}
