package io.sluice.engine.telemetry;

import java.util.List;

/**
 * One network (an IPv4 /24 or IPv6 /48) over the last minute: a row of the console's networks view.
 *
 * @param network        the network as a CIDR, e.g. {@code 203.0.113.0/24}: what a ban of it would hold
 * @param addresses      distinct addresses (IPv6: /64s) of it among the tracked clients
 * @param userAgents     distinct user agents among its tracked clients
 * @param hits           hits its clients pushed in the last minute
 * @param refused        its clients' refusals in the last minute
 * @param cost           what its requests cost the upstream in the last minute
 * @param upstreamShare  its share of the upstream's time in the last minute (of every request's), 0 to 1
 * @param busiestAddresses up to five of its addresses, the busiest first
 * @param busiestUserAgents up to five of its user agents, the busiest first
 * @param funnel         its browser-check funnel over the last minute (the same span as {@code cost}; never null:
 *                       {@link NetworkFunnel#NONE} for a network the check never met)
 */
public record NetworkRow(String network, int addresses, int userAgents, long hits, long refused, Cost cost,
                         double upstreamShare, List<String> busiestAddresses, List<String> busiestUserAgents,
                         NetworkFunnel funnel) {

    public NetworkRow {
        funnel = funnel == null ? NetworkFunnel.NONE : funnel;
    }

    /** A row the browser check never met (and one read from a server older than the funnel). */
    public NetworkRow(String network, int addresses, int userAgents, long hits, long refused, Cost cost,
                      double upstreamShare, List<String> busiestAddresses, List<String> busiestUserAgents) {
        this(network, addresses, userAgents, hits, refused, cost, upstreamShare, busiestAddresses, busiestUserAgents,
                NetworkFunnel.NONE);
    }
}
