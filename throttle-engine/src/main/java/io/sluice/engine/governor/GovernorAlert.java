package io.sluice.engine.governor;

import java.time.Instant;

/**
 * Raised once when a domain is given up.
 *
 * @param id      increases by one per alert
 * @param at      when it was raised
 * @param domain  the domain
 * @param message what happened, for the operator
 */
public record GovernorAlert(long id, Instant at, String domain, String message) {
}
