package io.sluice.engine;

import io.sluice.engine.telemetry.ShadowSummary;

/**
 * Sees every decision the engine makes, on the request path: the what-if shadow
 * ({@link io.sluice.engine.whatif.LiveShadow}) judges the same request under a candidate policy. A tap
 * decides nothing: it must hand back a decision that acts exactly like the one it was given, must never
 * block, and should cost a few tens of nanoseconds.
 */
public interface DecisionTap {

    /**
     * @param request    the request just decided
     * @param atMillis   the engine's time of the decision
     * @param decision   what the engine decided
     * @return {@code decision}, or a decision with the same answer whose admission or deferral also tells
     *         the tap how the request ended
     */
    Decision tapped(Request request, long atMillis, Decision decision);

    /** What the snapshot shows of the tap now; null for nothing. Called about once a second, off the request path. */
    ShadowSummary summary(long nowMillis);
}
