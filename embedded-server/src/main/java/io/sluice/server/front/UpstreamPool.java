package io.sluice.server.front;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.util.IO;

/**
 * The upstream connections of one selector: idle ones are reused most recently used first (their
 * window and caches are warm), new ones are opened on the same selector, so a request and its upstream
 * connection are served by one thread. At most {@link LeanForwarding#MAX_IDLE_PER_SELECTOR} are kept idle.
 */
final class UpstreamPool {
    private final ManagedSelector selector;
    private final LeanConnector connector;
    private final LeanForwarding forwarding;
    // Guarded by this.
    private final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>();

    UpstreamPool(ManagedSelector selector, LeanConnector connector, LeanForwarding forwarding) {
        this.selector = selector;
        this.connector = connector;
        this.forwarding = forwarding;
    }

    LeanForwarding forwarding() {
        return forwarding;
    }

    /** An idle open connection to the upstream's address now, or null; idle ones to an address it left are closed. */
    synchronized UpstreamConnection acquire() {
        InetSocketAddress target = forwarding.upstreamAddress();
        UpstreamConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            if (!connection.getEndPoint().isOpen()) {
                continue;
            }
            if (connection.target() == target) {
                return connection;
            }
            connection.close();
        }
        return null;
    }

    void release(UpstreamConnection connection) {
        boolean kept;
        synchronized (this) {
            kept = connection.getEndPoint().isOpen() && idle.size() < LeanForwarding.MAX_IDLE_PER_SELECTOR;
            if (kept) {
                idle.addFirst(connection);
            }
        }
        if (kept) {
            connection.idle();
        } else {
            connection.close();
        }
    }

    synchronized void remove(UpstreamConnection connection) {
        idle.remove(connection);
    }

    /** Opens a new connection for {@code waiter}, which hears {@code connected} or {@code connectFailed}. */
    void connect(LeanExchange waiter) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.socket().setTcpNoDelay(true);
            channel.configureBlocking(false);
            InetSocketAddress target = forwarding.upstreamAddress();
            boolean connected = channel.connect(target);
            connector.register(selector, channel, connected, new Attempt(waiter, target));
        } catch (IOException | RuntimeException failure) {
            IO.close(channel);
            waiter.connectFailed(failure);
        }
    }

    /** One connection being opened, and the exchange waiting for it. */
    final class Attempt {
        private final LeanExchange waiter;
        private final InetSocketAddress target;

        Attempt(LeanExchange waiter, InetSocketAddress target) {
            this.waiter = waiter;
            this.target = target;
        }

        Connection newConnection(EndPoint endPoint) {
            return new UpstreamConnection(endPoint, connector.getExecutor(), UpstreamPool.this, waiter, target);
        }

        void failed(Throwable failure) {
            waiter.connectFailed(failure);
        }
    }
}
