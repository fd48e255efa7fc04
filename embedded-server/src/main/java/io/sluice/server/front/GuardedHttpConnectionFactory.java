package io.sluice.server.front;

import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Jetty's HTTP/1.1 connections, with the request deadlines of the connector's {@link ConnectionGuard}: their
 * parser is a {@link TimedHttpParser}. A connection the lean path hands over keeps the lean connection's
 * deadlines (a head begun there is still due when it was).
 */
final class GuardedHttpConnectionFactory extends HttpConnectionFactory {
    GuardedHttpConnectionFactory(HttpConfiguration http) {
        super(http);
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        GuardedHttpConnection connection = new GuardedHttpConnection(getHttpConfiguration(), connector, endPoint);
        connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
        return configure(connection, connector, endPoint);
    }

    /** Jetty's connection with a timed parser. */
    private static final class GuardedHttpConnection extends HttpConnection {
        // Set while Jetty's constructor runs (it asks for the handler, then the parser), so no initialisers here.
        private HttpParser.RequestHandler handler;
        private RequestTimer timer;

        GuardedHttpConnection(HttpConfiguration http, Connector connector, EndPoint endPoint) {
            super(http, connector, endPoint);
        }

        @Override
        protected RequestHandler newRequestHandler() {
            RequestHandler made = super.newRequestHandler();
            handler = made;
            return made;
        }

        @Override
        protected HttpParser newHttpParser(HttpCompliance compliance) {
            timer = getEndPoint().getConnection() instanceof LeanConnection lean ? lean.requestTimer()
                    : ConnectionGuard.timerFor(getConnector(), getEndPoint());
            if (timer == null) {
                return super.newHttpParser(compliance);
            }
            HttpConfiguration http = getHttpConfiguration();
            HttpParser parser = new TimedHttpParser(handler, http.getRequestHeaderSize(), compliance, timer);
            parser.setHeaderCacheSize(http.getHeaderCacheSize());
            parser.setHeaderCacheCaseSensitive(http.isHeaderCacheCaseSensitive());
            return parser;
        }

        @Override
        public void onOpen() {
            // Before Jetty's onOpen, which may have the first request parsed on another thread before it returns.
            if (timer != null) {
                timer.opened();
            }
            super.onOpen();
        }
    }
}
