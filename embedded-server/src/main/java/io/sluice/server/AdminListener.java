package io.sluice.server;

import io.sluice.server.admin.AdminConnections;
import io.sluice.server.tls.AdminCertificate;
import java.net.URI;
import java.nio.file.Path;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The admin API's listener as the front end runs it, for embedded mode too: a server of its own (its own threads,
 * so a flood on the site cannot lock the operators out), the connection limit, header size and idle timeouts of
 * {@link Listeners} (room kept for operators however many strangers connect: {@link AdminConnections}, with its
 * default rules), HTTPS when a certificate is given, and plain HTTP refused on an address other than loopback
 * (the tokens would cross the network in clear text).
 *
 * @param server    the admin API's own server, to start and stop
 * @param connector its listener
 */
public record AdminListener(Server server, ServerConnector connector) {

    /**
     * The listener on {@code address} serving {@code api}.
     *
     * @param certificate the TLS certificate, or null for plain HTTP (loopback only)
     * @throws IllegalArgumentException plain HTTP on an address other than loopback
     */
    public static AdminListener create(HostPort address, ConnectionLimits limits, AdminCertificate certificate,
                                       Handler api) {
        if (certificate == null) {
            refusePlainHttp(address);
        }
        Server server = Listeners.adminServer(limits);
        ServerConnector connector = Listeners.admin(server, address, limits, certificate,
                AdminConnections.Rules.DEFAULTS);
        server.setHandler(api);
        return new AdminListener(server, connector);
    }

    /** @throws IllegalArgumentException when {@code address} is not loopback: plain HTTP would expose the tokens */
    public static void refusePlainHttp(HostPort address) {
        if (!Listeners.isLoopback(address.host())) {
            throw new IllegalArgumentException("the admin API would listen on " + address + " without TLS, so its "
                    + "tokens would cross the network in clear text: serve it over TLS (adminTls), or listen on "
                    + "127.0.0.1");
        }
    }

    /**
     * The console command that reaches an admin API, ready to paste: over HTTPS with the certificate's pin, so
     * the console trusts exactly this certificate and sends nothing to any other (docs/manual/console.md).
     *
     * @param certificate the listener's certificate, or null for plain HTTP
     */
    public static String consoleCommand(URI adminUri, Path tokenFile, AdminCertificate certificate) {
        return "./sluice console --url " + adminUri + " --token-file " + tokenFile
                + (certificate == null ? "" : " --pin " + certificate.pin());
    }
}
