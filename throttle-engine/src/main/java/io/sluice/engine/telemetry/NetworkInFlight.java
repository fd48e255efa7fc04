package io.sluice.engine.telemetry;

/**
 * One network's requests in flight as the browser check counts them against its concurrency limits (on this node),
 * and how often it was at them lately: a row of the snapshot's {@code browserCheck.busiestNetworks}.
 *
 * @param network           the network as a CIDR, at the policy's prefixes ({@code browserCheck.networks})
 * @param withoutPass       its browser claims without a pass in flight now
 * @param onPass            its requests on a pass in flight now
 * @param limitedLastMinute its requests over either limit in the last minute (challenged or refused)
 */
public record NetworkInFlight(String network, int withoutPass, int onPass, long limitedLastMinute) {
}
