package io.sluice.engine.telemetry;

/**
 * Load on the upstream.
 *
 * @param inFlight   requests admitted and not yet completed
 * @param waiting    requests parked by load deferral
 * @param maxActive  the policy's limit on in-flight requests before deferral
 * @param maxWaiting the policy's limit on waiting requests
 */
public record LoadState(int inFlight, int waiting, int maxActive, int maxWaiting) {
}
