package io.sluice.engine.whatif;

import io.sluice.engine.RequestClass;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a candidate policy would have done to some traffic, next to what the live policy did: the one
 * format of the live shadow ({@code GET /api/v1/policy/shadow}) and of {@code sluice-server replay}.
 *
 * @param source            {@code live} (the shadow on real traffic) or {@code replay} (access logs)
 * @param from              the first request counted (live: the start of the window)
 * @param to                the last request counted (live: now)
 * @param baseline          what the {@code live} columns are: the live policy's real decisions, the decisions
 *                          logged, or a second policy replayed ({@code --against})
 * @param requests          requests judged by both policies
 * @param liveRefused       of those, refused by the live side
 * @param candidateRefused  of those, refused by the candidate
 * @param clientsDiffering  clients (IP, user agent) with at least one request the two treat differently
 * @param browsersDiffering of those, browsers
 * @param outcomes          per class and outcome (rule), the count on each side; rows where both are 0 left out
 * @param clients           the differing clients, browsers first, then by requests treated differently; at
 *                          most the limit asked for
 * @param untrackedRequests requests of clients beyond the per-client table's bound: in the totals, not in
 *                          {@code clients}
 * @param dropped           live: requests the shadow did not see because it could not keep up
 * @param skipped           replay: log lines that were not a request in NCSA combined format
 * @param notes             what is approximated, and anything else the reader must know to trust the numbers
 */
public record WhatIfReport(
        String source,
        Instant from,
        Instant to,
        String baseline,
        long requests,
        long liveRefused,
        long candidateRefused,
        int clientsDiffering,
        int browsersDiffering,
        List<OutcomeRow> outcomes,
        List<ClientDifference> clients,
        long untrackedRequests,
        long dropped,
        long skipped,
        List<String> notes) {

    /**
     * @param requestClass the class, as the candidate classifies the request
     * @param outcome      {@code ADMIT}, {@code DELAYED} or {@code REFUSE:<REASON>}
     * @param live         requests with this outcome on the live side
     * @param candidate    requests with this outcome under the candidate
     */
    public record OutcomeRow(RequestClass requestClass, String outcome, long live, long candidate) {
    }

    /**
     * One client the two policies treat differently.
     *
     * @param requests  its requests in the report's span (its hits)
     * @param differing of those, the ones with a different outcome
     * @param live      its requests by outcome on the live side
     * @param candidate its requests by outcome under the candidate
     */
    public record ClientDifference(String ip, String userAgent, RequestClass requestClass, String crawlerName,
                                   long requests, long differing, Map<String, Long> live,
                                   Map<String, Long> candidate) {
    }
}
