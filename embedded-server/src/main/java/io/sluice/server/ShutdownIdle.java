package io.sluice.server;

import java.time.Duration;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.AbstractConnector;

/**
 * Gives a connection that opens once its listener is stopping the stop's idle timeout. Jetty shortens the idle
 * timeout of the connections open when a stop begins, but a connection accepted just before its acceptor was
 * interrupted may open a moment later with the listener's full {@link Listeners#IDLE}: a client that then keeps it
 * quiet (a pool's spare connection) held the stop for its whole grace, and the stop failed as unclean.
 */
final class ShutdownIdle implements Connection.Listener {
    private final AbstractConnector connector;
    private final Duration idle;

    ShutdownIdle(AbstractConnector connector, Duration idle) {
        this.connector = connector;
        this.idle = idle;
    }

    @Override
    public void onOpened(Connection connection) {
        if (connector.isShutdown()) {
            connection.getEndPoint().setIdleTimeout(idle.toMillis());
        }
    }

    @Override
    public void onClosed(Connection connection) {
        // nothing held
    }
}
