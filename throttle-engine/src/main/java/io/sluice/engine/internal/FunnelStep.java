package io.sluice.engine.internal;

/** A step of the browser check's funnel, as a network's row counts it ({@link FunnelWindow}). */
public enum FunnelStep {
    /** A page navigation answered with the interstitial. */
    CHALLENGED,
    /** A proof-of-work answered right: a pass handed out. */
    PASS_EARNED,
    /** A pass handed out by the no-JavaScript path. */
    WEAK_PASS_EARNED,
    /** An answer refused at the pass endpoint. */
    ANSWER_REFUSED,
    /** A request that came with a valid pass within its limits. */
    SERVED_ON_PASS
}
