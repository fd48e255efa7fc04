package io.sluice.engine;

/**
 * The client a decision is about: the pair (IP, user agent) and what the engine made of it.
 *
 * @param ip           the resolved client IP (peer, or what a trusted proxy reported)
 * @param userAgent    the user agent, empty string when absent
 * @param requestClass the class the request was put in
 * @param crawlerName  the matched crawler-list entry (e.g. "Googlebot"), or null
 * @param allowListed  true when an allow-list entry exempted the client from rules 3-7
 */
public record ClientInfo(
        String ip,
        String userAgent,
        RequestClass requestClass,
        String crawlerName,
        boolean allowListed) {
}
