package io.sluice.engine.policy;

/**
 * An exemption from rules 3-7 for a trusted client (monitoring, partners, the office).
 *
 * @param type            {@code IP} (address or CIDR) or {@code AGENT} (case-insensitive substring)
 * @param value           what is matched
 * @param exemptFromPause true when even a pause does not stop this client
 * @param note            why the entry exists
 */
public record AllowEntry(AllowType type, String value, boolean exemptFromPause, String note) {
}
