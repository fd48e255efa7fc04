package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection that opens as its listener begins to stop (accepted a moment before the acceptor was interrupted) is
 * closed after the stop's idle timeout like those already open, not after the listener's own: such a connection,
 * kept quiet by a client's pool, once held a stop for its whole grace.
 */
class ShutdownIdleTest {
    private static final Duration STOP_IDLE = Duration.ofMillis(250);

    private final Server server = new Server();
    private final ServerConnector connector = new ServerConnector(server, 1, 1);
    private final ShutdownIdle shutdownIdle = new ShutdownIdle(connector, STOP_IDLE);

    @BeforeEach
    void start() throws Exception {
        connector.setHost("127.0.0.1");
        connector.setIdleTimeout(Listeners.IDLE.toMillis());
        server.addConnector(connector);
        server.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    @Test
    void aConnectionOpenedWhileTheListenerStopsGetsTheStopsIdleTimeout() throws Exception {
        connector.shutdown();
        Connection late = opened();

        assertThat(late.getEndPoint().getIdleTimeout()).isEqualTo(STOP_IDLE.toMillis());
    }

    @Test
    void aConnectionOpenedWhileTheListenerServesKeepsItsOwn() {
        Connection usual = opened();

        assertThat(usual.getEndPoint().getIdleTimeout()).isEqualTo(Listeners.IDLE.toMillis());
    }

    private Connection opened() {
        ByteArrayEndPoint endPoint = new ByteArrayEndPoint();
        endPoint.setIdleTimeout(connector.getIdleTimeout());
        Connection connection = new AbstractConnection(endPoint, Runnable::run) {
            @Override
            public void onFillable() {
                // nothing is read here
            }
        };
        shutdownIdle.onOpened(connection);
        return connection;
    }
}
