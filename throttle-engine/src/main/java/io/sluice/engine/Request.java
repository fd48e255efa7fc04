package io.sluice.engine;

/**
 * What the front end tells the engine about one inbound request. Header values are passed raw
 * (null when absent): which of them may be believed is the engine's decision, not the caller's.
 *
 * @param peerAddress   the TCP peer's IP address, IPv4 or IPv6, without port
 * @param userAgent     the {@code User-Agent} header, or null
 * @param xForwardedFor the {@code X-Forwarded-For} header (all values joined by commas), or null
 * @param forwarded     the RFC 7239 {@code Forwarded} header (all values joined by commas), or null
 * @param method        the HTTP method
 * @param path          the request path, without query
 */
public record Request(
        String peerAddress,
        String userAgent,
        String xForwardedFor,
        String forwarded,
        String method,
        String path) {

    /** A direct request from {@code peerAddress} with no forwarding headers. */
    public static Request direct(String peerAddress, String userAgent) {
        return new Request(peerAddress, userAgent, null, null, "GET", "/");
    }
}
