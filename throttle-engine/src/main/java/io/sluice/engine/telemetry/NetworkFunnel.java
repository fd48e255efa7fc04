package io.sluice.engine.telemetry;

/**
 * One network's browser-check funnel over the last minute (the same minute as its row's cost: see
 * {@link NetworkRow}), each step counted where the whole site's is ({@link BrowserCheckCounts}), on the network of
 * the request's address.
 *
 * @param challenged       its page navigations answered with the interstitial (whichever rule asked: its
 *                         {@code REFUSE:CHALLENGE} lines in the access log)
 * @param passesEarned     proofs-of-work its browsers answered right: passes handed out
 * @param weakPassesEarned passes handed out to it by the no-JavaScript path
 * @param answersRefused   its answers refused (forged, expired, wrong, too early, or the no-JavaScript path off)
 * @param servedOnPass     its requests that came with a valid pass within the pass's and the network's limits
 */
public record NetworkFunnel(long challenged, long passesEarned, long weakPassesEarned, long answersRefused,
                            long servedOnPass) {

    /** A network the check never met. */
    public static final NetworkFunnel NONE = new NetworkFunnel(0, 0, 0, 0, 0);
}
