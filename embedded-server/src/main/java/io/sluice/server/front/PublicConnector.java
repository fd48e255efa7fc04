package io.sluice.server.front;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The listener the site's visitors reach. Its HTTP settings are the front end's: no {@code Server}
 * header of Jetty's own (the upstream's passes through; a refusal names no software), and strict
 * parsing: Jetty's RFC 9110 mode refuses Content-Length with Transfer-Encoding, differing
 * Content-Lengths, a Transfer-Encoding not ending in chunked, folded header lines and whitespace before
 * a colon; on top of that a bare LF ending a header line or a chunk line is refused too (RFC 9112 lets a
 * recipient accept it, and the servers behind proxies disagree about it, which is how requests are
 * smuggled). An encoded slash or percent sign in the path ({@code /a%2Fb}) is passed to the upstream as
 * sent, as nginx does: what it means is the site's business; Jetty refuses it by default only to protect
 * its own path mapping, which the proxy does not use. Dot segments ({@code /a/../b}) stay refused.
 */
public final class PublicConnector {
    private PublicConnector() {
    }

    /** The request parsing rules of the public listener. */
    public static final HttpCompliance STRICT_HTTP = HttpCompliance.RFC9110.without("SLUICE_STRICT",
            HttpCompliance.Violation.LF_HEADER_TERMINATION, HttpCompliance.Violation.LF_CHUNK_TERMINATION);

    /** The request-target rules of the public listener. */
    public static final UriCompliance PASS_THROUGH_URI = UriCompliance.DEFAULT.with("SLUICE_PASS_THROUGH",
            UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR, UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING);

    /** HTTP settings that name no server software ({@code Server}, {@code X-Powered-By}): for every listener. */
    public static HttpConfiguration anonymousHttp() {
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        return http;
    }

    /** The HTTP settings of the public listener. */
    public static HttpConfiguration httpConfiguration() {
        HttpConfiguration http = anonymousHttp();
        http.setHttpCompliance(STRICT_HTTP);
        http.setUriCompliance(PASS_THROUGH_URI);
        return http;
    }

    /** A connector on {@code host:port} (port 0: any free port) with {@link #httpConfiguration()}. */
    public static ServerConnector create(Server server, String host, int port) {
        ServerConnector connector = create(server, httpConfiguration());
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    /**
     * A connector whose HTTP/1.1 connections have the request deadlines of the {@link ConnectionGuard} installed on
     * it (none without one).
     */
    public static ServerConnector create(Server server, HttpConfiguration http) {
        return new ServerConnector(server, new GuardedHttpConnectionFactory(http));
    }

    /**
     * A connector on {@code host:port} with {@link #httpConfiguration()} that forwards the common case on the
     * lean path ({@link LeanConnector}) and hands the rest to the server's handlers.
     */
    public static LeanConnector createLean(Server server, String host, int port, LeanForwarding forwarding) {
        LeanConnector connector = LeanConnector.create(server, httpConfiguration(), forwarding);
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }
}
