package io.sluice.engine;

/**
 * What one admitted request cost the upstream, as the front end measured it: reported with
 * {@link Decision.Admission#complete(int, long, RequestCost)}, counted per client, address, network (IPv4 /24,
 * IPv6 /48), class and route (docs/manual/console.md, "Networks").
 *
 * @param firstByteNanos from the admission to the upstream's first response byte; -1 when none came
 * @param upstreamNanos  from the admission to the response's end (the whole exchange with the upstream)
 * @param bytesIn        request body bytes read from the client
 * @param bytesOut       response body bytes written to the client
 */
public record RequestCost(long firstByteNanos, long upstreamNanos, long bytesIn, long bytesOut) {

    /** The cost of a request the upstream never answered (its first byte unknown, no body either way). */
    public static RequestCost unanswered(long upstreamNanos) {
        return new RequestCost(-1, upstreamNanos, 0, 0);
    }
}
