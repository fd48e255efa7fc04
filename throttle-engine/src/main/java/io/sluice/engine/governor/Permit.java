package io.sluice.engine.governor;

/**
 * The governor's answer to "may I fetch from this domain now?".
 *
 * @param domain     the normalised domain
 * @param granted    fetch now
 * @param waitMillis when not granted, ask again after this long; -1 when the domain is given up
 * @param reason     when not granted, why; null when granted
 */
public record Permit(String domain, boolean granted, long waitMillis, PermitReason reason) {

    static Permit grant(String domain) {
        return new Permit(domain, true, 0, null);
    }

    static Permit waitFor(String domain, long waitMicros, PermitReason reason) {
        // Rounded up: a worker that comes back after waitMillis must find the slot open.
        return new Permit(domain, false, Math.max(1, (waitMicros + 999) / 1000), reason);
    }

    static Permit givenUp(String domain) {
        return new Permit(domain, false, -1, PermitReason.GIVEN_UP);
    }
}
