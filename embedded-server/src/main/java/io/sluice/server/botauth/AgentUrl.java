package io.sluice.server.botauth;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A {@code Signature-Agent} URL: where the agent's key directory is fetched, and the identifier a verified request is
 * attributed to (the webbotauth draft: the URL, its query dropped, normalised). A URL that is an origin alone
 * ({@code https://agent.example}, the draft's earlier form) means the directory at its well-known path.
 *
 * @param fetch      what is fetched
 * @param identifier the normalised URL without query: the cache's key
 * @param name       what the request is called once verified: the host (with a port other than the default) for a
 *                   directory at the well-known path, else host and path
 * @param host       the directory's host, lowercase: fetches are bounded per host
 */
record AgentUrl(URI fetch, String identifier, String name, String host) {

    /** The well-known path of a key directory (the draft's IANA registration). */
    static final String WELL_KNOWN = "/.well-known/http-message-signatures-directory";
    /** Longer than any directory URL worth fetching. */
    static final int MAX_LENGTH = 512;

    /**
     * @param plainHttp accept {@code http://} (tests and labs; the draft requires HTTPS)
     * @throws IllegalArgumentException not an absolute https URL (or http when allowed), with a user part or a
     *                                  fragment, or too long
     */
    static AgentUrl parse(String text, boolean plainHttp) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("no URL, or one too long");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !(plainHttp && scheme.equals("http"))) {
            throw new IllegalArgumentException("a key directory is fetched over https");
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("not an absolute URL with a host, without user or fragment");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        int port = uri.getPort();
        boolean defaultPort = port < 0 || (scheme.equals("https") && port == 443) || (scheme.equals("http")
                && port == 80);
        String authority = defaultPort ? host : host + ":" + port;
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        boolean origin = path.isEmpty() || path.equals("/");
        String fetchPath = origin ? WELL_KNOWN : path;
        URI fetch = URI.create(scheme + "://" + authority + fetchPath
                + (origin || uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
        String identifier = scheme + "://" + authority + fetchPath;
        String name = fetchPath.equals(WELL_KNOWN) ? authority : authority + fetchPath;
        return new AgentUrl(fetch, identifier, name, host);
    }
}
