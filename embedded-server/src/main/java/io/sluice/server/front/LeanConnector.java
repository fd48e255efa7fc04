package io.sluice.server.front;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The public listener of the lean path: a {@link ServerConnector} whose first protocol is
 * {@link LeanConnectionFactory} (Jetty's HTTP/1.1 next, for what the lean path hands over), and whose
 * selectors also carry the connections to the upstream. An upstream connection is opened on the selector
 * of the client connection that needs it, so the client's request, the upstream's response and the bytes
 * copied between them are all handled by one selector thread, as nginx keeps both sockets on one event loop.
 *
 * <p>Upstream connections are the connector's own business: they are not counted as visitors'
 * connections (connection limit, graceful shutdown), only closed with the connector.
 */
public final class LeanConnector extends ServerConnector {
    /** The selector an upstream connection should be opened on, for the {@code connect} call in progress. */
    private static final ThreadLocal<ManagedSelector> TARGET = new ThreadLocal<>();

    private final Set<SelectableChannel> upstreamChannels = ConcurrentHashMap.newKeySet();
    private final LeanForwarding forwarding;

    private LeanConnector(Server server, LeanForwarding forwarding, ConnectionFactory... factories) {
        super(server, factories);
        this.forwarding = forwarding;
        addBean(forwarding.upstreamAddressBook(), true);
    }

    /**
     * A connector on {@code host:port} with {@code http} as the HTTP settings of both paths (the lean path
     * reads its parsing rules and limits there, so both refuse the same requests).
     */
    public static LeanConnector create(Server server, HttpConfiguration http, LeanForwarding forwarding) {
        HttpConnectionFactory fallback = new GuardedHttpConnectionFactory(http);
        LeanConnectionFactory lean = new LeanConnectionFactory(http, fallback, forwarding);
        return new LeanConnector(server, forwarding, lean, fallback);
    }

    LeanForwarding forwarding() {
        return forwarding;
    }

    /** The upstream pool served by the thread of {@code endPoint}'s selector. */
    UpstreamPool poolFor(EndPoint endPoint) {
        return forwarding.pool(((SelectorEndPoint) endPoint).selector, this);
    }

    /**
     * Opens {@code channel} (connected or connecting to the upstream) on {@code selector}; {@code attempt}
     * learns the outcome.
     */
    void register(ManagedSelector selector, SocketChannel channel, boolean connected, UpstreamPool.Attempt attempt) {
        upstreamChannels.add(channel);
        SelectorManager manager = getSelectorManager();
        TARGET.set(selector);
        try {
            if (connected) {
                manager.accept(channel, attempt);
            } else {
                manager.connect(channel, attempt);
            }
        } finally {
            TARGET.remove();
        }
    }

    @Override
    protected SelectorManager newSelectorManager(Executor executor, Scheduler scheduler, int selectors) {
        return new Manager(executor, scheduler, selectors);
    }

    @Override
    protected SocketChannelEndPoint newEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key) {
        SelectorEndPoint endPoint = new SelectorEndPoint(channel, selector, key, this);
        endPoint.setIdleTimeout(upstreamChannels.contains(channel) ? forwarding.upstreamTimeoutMillis()
                : getIdleTimeout());
        return endPoint;
    }

    /** An end point that knows its selector, so its connection can find the upstream pool of its thread. */
    private static final class SelectorEndPoint extends SocketChannelEndPoint {
        private final ManagedSelector selector;

        SelectorEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key, ServerConnector connector) {
            super(channel, selector, key, connector.getScheduler());
            this.selector = selector;
        }
    }

    /** The connector's selectors, which also open upstream connections on the selector asked for. */
    private final class Manager extends ServerConnectorManager {
        Manager(Executor executor, Scheduler scheduler, int selectors) {
            super(executor, scheduler, selectors);
            setConnectTimeout(LeanForwarding.CONNECT_TIMEOUT_MILLIS);
        }

        @Override
        protected ManagedSelector chooseSelector() {
            ManagedSelector target = TARGET.get();
            return target != null ? target : super.chooseSelector();
        }

        @Override
        public Connection newConnection(SelectableChannel channel, EndPoint endPoint, Object attachment)
                throws IOException {
            if (attachment instanceof UpstreamPool.Attempt attempt) {
                return attempt.newConnection(endPoint);
            }
            return super.newConnection(channel, endPoint, attachment);
        }

        @Override
        protected void connectionFailed(SelectableChannel channel, Throwable failure, Object attachment) {
            upstreamChannels.remove(channel);
            if (attachment instanceof UpstreamPool.Attempt attempt) {
                attempt.failed(failure);
            } else {
                super.connectionFailed(channel, failure, attachment);
            }
        }

        @Override
        protected void onAcceptFailed(SelectableChannel channel, Throwable failure, Object attachment) {
            if (upstreamChannels.remove(channel)) {
                if (attachment instanceof UpstreamPool.Attempt attempt) {
                    attempt.failed(failure);
                }
                return;
            }
            super.onAcceptFailed(channel, failure, attachment);
        }

        // Upstream connections are not visitors: no connection limit, no wait for them at shutdown.

        @Override
        protected void onAccepting(SelectableChannel channel) {
            if (!upstreamChannels.contains(channel)) {
                super.onAccepting(channel);
            }
        }

        @Override
        protected void onAccepted(SelectableChannel channel) {
            if (!upstreamChannels.contains(channel)) {
                super.onAccepted(channel);
            }
        }

        @Override
        protected void endPointOpened(EndPoint endPoint) {
            if (!isUpstream(endPoint)) {
                super.endPointOpened(endPoint);
            }
        }

        @Override
        protected void endPointClosed(EndPoint endPoint) {
            if (endPoint.getTransport() instanceof SelectableChannel channel && upstreamChannels.remove(channel)) {
                return;
            }
            super.endPointClosed(endPoint);
        }

        private boolean isUpstream(EndPoint endPoint) {
            return endPoint.getTransport() instanceof SelectableChannel channel && upstreamChannels.contains(channel);
        }
    }
}
