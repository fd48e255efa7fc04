package io.sluice.engine.telemetry;

import io.sluice.engine.policy.BrowserCheck;

/**
 * The browser check as the snapshot shows it: its mode, whether the site is under pressure (adaptive mode then asks
 * every browser claim without a pass), and its funnel since the engine started (counts never go down).
 *
 * @param mode              the live policy's mode
 * @param underPressure     whether the site counts as under pressure now
 * @param challenged        page navigations answered with the interstitial
 * @param passesEarned      proofs-of-work answered right: passes handed out
 * @param weakPassesEarned  passes handed out by the no-JavaScript path
 * @param answersRefused    answers refused (forged, expired, wrong, too early, or the no-JavaScript path off)
 * @param servedOnPass      requests that came with a valid pass within its limits
 * @param passesDropped     requests whose pass was over its own limits or its network's budget on a pass
 */
public record BrowserCheckCounts(BrowserCheck.Mode mode, boolean underPressure, long challenged, long passesEarned,
                                 long weakPassesEarned, long answersRefused, long servedOnPass, long passesDropped) {
}
