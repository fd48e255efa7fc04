package io.sluice.console.fleet;

/**
 * One node in the fleet table, every cell in the operator's words.
 *
 * @param name          the node's name
 * @param admin         its admin API address (to connect to it alone)
 * @param health        how it stands
 * @param state         the state in words ("healthy", "DEGRADED", "UNREACHABLE")
 * @param inFlight      requests in flight, as last reported
 * @param requests      requests per second ("12.4/s"), or "—" when it is silent
 * @param refused       refused per second, the same way
 * @param policyVersion the policy version it runs, "v42"
 * @param lastHeard     how long ago it was last heard from ("0.1 s ago")
 * @param attention     it needs an operator's eye (degraded, silent, or on another policy version)
 */
public record NodeRow(String name, String admin, NodeHealth health, String state, long inFlight, String requests,
                      String refused, String policyVersion, String lastHeard, boolean attention) {
}
