package io.sluice.engine.telemetry;

import java.util.List;

/**
 * One autonomous system over the last minute, with the operator's IP-to-ASN file: a row of the console's AS table,
 * the sum of the rows of its networks (its IPv4 /24s and IPv6 /48s, each counted under the AS of its first address).
 *
 * @param asn             the AS number
 * @param description     what the file calls it ({@code AMAZON-02}), or null when it says nothing
 * @param networks        its networks seen in the last minute
 * @param addresses       distinct addresses (IPv6: /64s) of it among the tracked clients
 * @param userAgents      distinct user agents among its tracked clients
 * @param hits            hits its clients pushed in the last minute
 * @param refused         its clients' refusals in the last minute
 * @param cost            what its requests cost the upstream in the last minute
 * @param upstreamShare   its share of the upstream's time in the last minute (of every request's), 0 to 1
 * @param busiestNetworks up to five of its networks as CIDRs, the busiest first
 */
public record AsnRow(long asn, String description, int networks, int addresses, int userAgents, long hits,
                     long refused, Cost cost, double upstreamShare, List<String> busiestNetworks) {

    public AsnRow {
        cost = cost == null ? Cost.NONE : cost;
        busiestNetworks = busiestNetworks == null ? List.of() : List.copyOf(busiestNetworks);
    }
}
