package io.sluice.engine.internal;

/**
 * A client's identity: the pair (canonical IP, user agent).
 *
 * @param ip        the canonical text of the resolved address
 * @param userAgent the user agent, empty when absent
 */
public record ClientKey(String ip, String userAgent) {
}
