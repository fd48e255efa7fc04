package io.sluice.engine.governor;

/**
 * A shared ledger's state of one domain after a call, for the node to answer with and to keep as its own
 * (what it paces on if the ledger becomes unreachable). Times are durations from the ledger's now, because
 * the ledger's clock is not the node's.
 *
 * @param granted              a permit call: the slot is this caller's
 * @param waitMicros           a permit call not granted: how long until it may be
 * @param reason               a permit call not granted: why (null when granted)
 * @param rate                 the domain's learned rate, requests per second
 * @param intervalMicros       the gap between two grants now: the rate and every known minimum delay
 * @param blockedForMicros     how long the {@code Retry-After} floor or the backoff still holds (0: none)
 * @param blockReason          {@code RETRY_AFTER} or {@code BACKOFF} while blocked
 * @param breaker              the breaker's state
 * @param breakerOpenForMicros while open, how long until trials (0 otherwise)
 * @param backoffLevel         how many times the 429 backoff has doubled
 * @param consecutiveErrors    errors in a row
 * @param givenUp              given up until an operator revives it
 * @param gaveUpNow            this call (a report) gave the domain up: the one node that raises the alert
 * @param slowStart            the rate still doubles
 * @param calls60s             responses in the breaker's last 60 s, or -1 when this answer does not say
 * @param errors60s            errors among them, or -1
 * @param credited             a report: its worker held a grant of the domain to report on, so it was judged
 *                             (false: ignored, nothing changed); true for other calls
 */
public record LedgerAnswer(boolean granted, long waitMicros, PermitReason reason, double rate, long intervalMicros,
        long blockedForMicros, PermitReason blockReason, BreakerState breaker, long breakerOpenForMicros,
        int backoffLevel, int consecutiveErrors, boolean givenUp, boolean gaveUpNow, boolean slowStart,
        int calls60s, int errors60s, boolean credited) {
}
