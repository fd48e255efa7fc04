package io.sluice.engine.telemetry;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How crawler claims are being verified: where the published ranges in use come from and how old each source is,
 * and what the reverse-DNS lookups have done (docs/manual/classify.md, "Crawler verification").
 *
 * @param ranges  each source of the published ranges: the bundled copy first, then the operator's, if any
 * @param lookups the reverse-DNS verifier's counts; null when the engine has none
 */
public record CrawlerVerification(List<RangesSource> ranges, Lookups lookups) {

    public CrawlerVerification {
        ranges = ranges == null ? List.of() : List.copyOf(ranges);
    }

    /**
     * One source of the published ranges.
     *
     * @param source     {@code bundled} (shipped with Sluice) or {@code operator} (the file or URL the operator
     *                   configured, or gave to {@code sluice-server crawler-ranges update})
     * @param location   the resource, file or URL it is read from
     * @param asOf       when the copy in use was taken from the crawlers' publishers: the oldest {@code fetched}
     *                   date in it, else when Sluice read it; null when unknown
     * @param ageSeconds seconds from {@code asOf} to the snapshot; -1 when unknown
     * @param checkedAt  when Sluice last read the source (successfully or not); null for the bundled copy
     * @param prefixes   blocks in the copy in use
     * @param problem    why the last read was not used (the source failed, or its copy was refused and the last
     *                   good one kept); null when it was
     */
    public record RangesSource(String source, String location, Instant asOf, long ageSeconds, Instant checkedAt,
                               int prefixes, String problem) {

        /** This source as seen at {@code now}. */
        public RangesSource at(Instant now) {
            long age = asOf == null ? -1 : Math.max(0, Duration.between(asOf, now).getSeconds());
            return new RangesSource(source, location, asOf, age, checkedAt, prefixes, problem);
        }
    }

    /**
     * What forward-confirmed reverse DNS has done since start; only {@code inFlight} can go down.
     *
     * @param started    lookups started
     * @param verified   answers that confirmed a claim
     * @param failed     answers that did not
     * @param unanswered lookups that got no answer (DNS timed out or failed; dropped after waiting in the queue):
     *                   their claims are asked again after a short backoff, never remembered as failures
     * @param deferred   claims not looked up because their network or crawler had its quota of lookups in flight
     * @param refused    lookups the lookup queue had no room for
     * @param inFlight   lookups queued or running now
     */
    public record Lookups(long started, long verified, long failed, long unanswered, long deferred, long refused,
                          int inFlight) {
    }
}
