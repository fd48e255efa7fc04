package io.sluice.engine;

/**
 * What the front end tells the engine about one inbound request. Header values are passed raw
 * (null when absent): which of them may be believed is the engine's decision, not the caller's.
 *
 * @param peerAddress  the TCP peer's IP address, IPv4 or IPv6, without port
 * @param userAgent    the {@code User-Agent} header, or null
 * @param forwardedFor the value(s), joined by commas, of the one forwarding header the policy names
 *                     ({@link ThrottleEngine#forwardedHeader()}, {@code X-Forwarded-For} by default), or null; no
 *                     other forwarding header is ever read, so a client sending a second one changes nothing
 * @param method       the HTTP method
 * @param path         the request path, without query
 * @param query        the raw query string, without {@code ?}, or null
 * @param secFetchDest the {@code Sec-Fetch-Dest} header, or null (it only ever narrows a route, see
 *                     {@link io.sluice.engine.policy.Route})
 * @param secFetchMode the {@code Sec-Fetch-Mode} header, or null: with {@code accept}, whether a browser claim is
 *                     a page navigation (the browser check asks only those to prove themselves)
 * @param accept       the {@code Accept} header, or null
 * @param pass         the browser check's pass (the value of the cookie
 *                     {@link io.sluice.engine.check.BrowserPasses#COOKIE}), or null: a claim until checked
 * @param signed       what an HTTP message signature may cover, when the request carries one
 *                     ({@code Signature-Input}), or null: a claim until the engine's
 *                     {@link io.sluice.engine.classify.SignedAgents} verifies it
 */
public record Request(
        String peerAddress,
        String userAgent,
        String forwardedFor,
        String method,
        String path,
        String query,
        String secFetchDest,
        String secFetchMode,
        String accept,
        String pass,
        SignedMessage signed) {

    /** A request without a message signature. */
    public Request(String peerAddress, String userAgent, String forwardedFor, String method, String path,
                   String query, String secFetchDest, String secFetchMode, String accept, String pass) {
        this(peerAddress, userAgent, forwardedFor, method, path, query, secFetchDest, secFetchMode, accept, pass,
                null);
    }

    /** A request without the headers the browser check reads (the form before the check existed). */
    public Request(String peerAddress, String userAgent, String forwardedFor, String method, String path,
                   String query, String secFetchDest) {
        this(peerAddress, userAgent, forwardedFor, method, path, query, secFetchDest, null, null, null);
    }

    /** A direct {@code GET /} from {@code peerAddress} with no forwarding header. */
    public static Request direct(String peerAddress, String userAgent) {
        return new Request(peerAddress, userAgent, null, "GET", "/", null, null);
    }

    /** The same request carrying the signed parts {@code message} (null: unsigned). */
    public Request withSigned(SignedMessage message) {
        return new Request(peerAddress, userAgent, forwardedFor, method, path, query, secFetchDest, secFetchMode,
                accept, pass, message);
    }

    /** A direct {@code GET} of {@code path} from {@code peerAddress}. */
    public static Request get(String peerAddress, String userAgent, String path) {
        return new Request(peerAddress, userAgent, null, "GET", path, null, null);
    }

    /** The same request as forwarded by a proxy at {@code peer} that set the forwarding header to {@code header}. */
    public Request via(String peer, String header) {
        return new Request(peer, userAgent, header, method, path, query, secFetchDest, secFetchMode, accept, pass,
                signed);
    }

    /** The same request carrying {@code passValue} as its browser-check pass. */
    public Request withPass(String passValue) {
        return new Request(peerAddress, userAgent, forwardedFor, method, path, query, secFetchDest, secFetchMode,
                accept, passValue, signed);
    }

    /** The same request with the headers a browser sends when it navigates ({@code Sec-Fetch-*}, {@code Accept}). */
    public Request asNavigation() {
        return new Request(peerAddress, userAgent, forwardedFor, method, path, query, "document", "navigate",
                "text/html,application/xhtml+xml,*/*;q=0.8", pass, signed);
    }
}
