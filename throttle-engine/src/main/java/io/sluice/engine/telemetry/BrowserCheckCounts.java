package io.sluice.engine.telemetry;

import io.sluice.engine.policy.BrowserCheck;
import java.util.List;

/**
 * The browser check as the snapshot shows it: its mode, whether the site is under pressure (adaptive mode then asks
 * every browser claim without a pass), and its funnel since the engine started (counts never go down).
 *
 * @param mode              the live policy's mode
 * @param underPressure     whether the site counts as under pressure now
 * @param challenged        page navigations answered with the interstitial, whichever rule asked: the check, or the
 *                          agent rule (a category whose action is to challenge, an address the trap marked)
 * @param passesEarned      proofs-of-work answered right: passes handed out
 * @param weakPassesEarned  passes handed out by the no-JavaScript path
 * @param answersRefused    answers refused (forged, expired, wrong, too early, or the no-JavaScript path off)
 * @param servedOnPass      requests that came with a valid pass within its limits
 * @param passesDropped     requests whose pass was over its own limits or its network's budget on a pass
 * @param passesInUse       passes seen lately (each pass's hit stack the engine holds: a pass unused for the client
 *                          table's idle time is no longer counted)
 * @param passesWithheld    right answers that earned no pass: their network was waiting out a cooldown after one of
 *                          its passes was dropped
 * @param alwaysChallenge   the networks the policy asks whenever the check is not off (the console's per-network
 *                          switch shows them)
 * @param overNetworkConcurrency requests over their network's concurrency limit (without a pass, or on one), since
 *                          start: pages challenged, other requests refused {@code NETWORK_CONCURRENCY}
 * @param busiestNetworks   up to {@link #BUSIEST_NETWORKS} networks with the most requests in flight now (or at a
 *                          limit in the last minute), the most first; on this node
 * @param networks          the tables of the networks' budgets (without a pass and with one, added up): held now,
 *                          capacity, evicted since start (a network evicted with requests in flight keeps its count
 *                          until they complete)
 * @param alwaysChallengeAsns the autonomous systems the policy asks whenever the check is not off (the console's
 *                          per-AS switch shows them); empty from a server older than the field
 */
public record BrowserCheckCounts(BrowserCheck.Mode mode, boolean underPressure, long challenged, long passesEarned,
                                 long weakPassesEarned, long answersRefused, long servedOnPass, long passesDropped,
                                 long passesInUse, long passesWithheld, List<String> alwaysChallenge,
                                 long overNetworkConcurrency, List<NetworkInFlight> busiestNetworks,
                                 ClientTableStats networks, List<Long> alwaysChallengeAsns) {

    /** The most networks {@link #busiestNetworks} lists. */
    public static final int BUSIEST_NETWORKS = 10;

    public BrowserCheckCounts {
        alwaysChallenge = alwaysChallenge == null ? List.of() : List.copyOf(alwaysChallenge);
        busiestNetworks = busiestNetworks == null ? List.of() : List.copyOf(busiestNetworks);
        networks = networks == null ? new ClientTableStats(0, 0, 0) : networks;
        alwaysChallengeAsns = alwaysChallengeAsns == null ? List.of() : List.copyOf(alwaysChallengeAsns);
    }

    /** The counts without always-challenged autonomous systems (the form before the IP-to-ASN file). */
    public BrowserCheckCounts(BrowserCheck.Mode mode, boolean underPressure, long challenged, long passesEarned,
                              long weakPassesEarned, long answersRefused, long servedOnPass, long passesDropped,
                              long passesInUse, long passesWithheld, List<String> alwaysChallenge,
                              long overNetworkConcurrency, List<NetworkInFlight> busiestNetworks,
                              ClientTableStats networks) {
        this(mode, underPressure, challenged, passesEarned, weakPassesEarned, answersRefused, servedOnPass,
                passesDropped, passesInUse, passesWithheld, alwaysChallenge, overNetworkConcurrency, busiestNetworks,
                networks, null);
    }
}
