package io.sluice.engine.telemetry;

/**
 * What requests cost the upstream over a span (the last minute in a snapshot's rows, since start in its totals), as
 * the front end measured them.
 *
 * @param requests        admitted requests completed with a cost
 * @param weight          their route weight, summed (what the hit stacks counted of them)
 * @param upstreamMicros  time with the upstream, summed: from the admission to the response's end
 * @param firstByteMicros time to the upstream's first byte, summed (requests the upstream never answered: none)
 * @param bytesIn         request body bytes read from clients
 * @param bytesOut        response body bytes written to clients
 */
public record Cost(long requests, long weight, long upstreamMicros, long firstByteMicros, long bytesIn,
                   long bytesOut) {

    public static final Cost NONE = new Cost(0, 0, 0, 0, 0, 0);

    /** The two together. */
    public Cost plus(Cost other) {
        return new Cost(requests + other.requests, weight + other.weight, upstreamMicros + other.upstreamMicros,
                firstByteMicros + other.firstByteMicros, bytesIn + other.bytesIn, bytesOut + other.bytesOut);
    }
}
