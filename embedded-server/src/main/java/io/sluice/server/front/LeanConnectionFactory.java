package io.sluice.server.front;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.AbstractConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;

/**
 * Makes a {@link LeanConnection} for each accepted connection of a {@link LeanConnector}. Its input buffer
 * is the size of Jetty's HTTP connection's, so whatever the lean connection has read can always be handed
 * over to one whole.
 */
final class LeanConnectionFactory extends AbstractConnectionFactory {
    static final String PROTOCOL = "sluice-lean-http/1.1";

    private final HttpConfiguration http;
    private final HttpConnectionFactory fallback;
    private final LeanForwarding forwarding;

    LeanConnectionFactory(HttpConfiguration http, HttpConnectionFactory fallback, LeanForwarding forwarding) {
        super(PROTOCOL);
        this.http = http;
        this.fallback = fallback;
        this.forwarding = forwarding;
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        LeanConnection connection = new LeanConnection((LeanConnector) connector, endPoint, http, fallback,
                forwarding);
        configure(connection, connector, endPoint);
        connection.setInputBufferSize(fallback.getInputBufferSize());
        return connection;
    }
}
