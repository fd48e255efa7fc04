package io.sluice.server.front;

import io.sluice.engine.net.IpAddress;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.util.IO;

/**
 * At most {@code perAddress} connections open at once from one address on the public listener (nginx's
 * {@code limit_conn} keyed by the client's address): past it a new connection from that address is closed as soon
 * as it is accepted, before a byte is read, and counted. An IPv6 client is keyed by its /64 (one host has a whole
 * /64 to choose from). The live policy's trusted proxies are not capped: one carries many clients.
 *
 * <p>It is what keeps the listener's global limit from being one address's to fill: without it a thousand idle
 * sockets from one address take a thousand of the listener's places, and everyone else waits in the backlog
 * (docs/architecture.md, "Under attack").
 */
public final class AddressConnectionLimit implements SelectorManager.AcceptListener {
    private final IntSupplier perAddress;
    private final TrustedProxies trusted;
    private final ShedConnections shed;
    private final Map<IpAddress, Integer> open = new ConcurrentHashMap<>();
    /** The key each counted connection was counted under (the channel no longer knows its peer once closed). */
    private final Map<SelectableChannel, IpAddress> counted = new ConcurrentHashMap<>();

    /** @param perAddress the cap, read at each new connection (a reload may change it) */
    AddressConnectionLimit(IntSupplier perAddress, TrustedProxies trusted, ShedConnections shed) {
        this.perAddress = perAddress;
        this.trusted = trusted;
        this.shed = shed;
    }

    @Override
    public void onAccepting(SelectableChannel channel) {
        IpAddress key = keyOf(channel);
        if (key == null) {
            return;
        }
        if (open.merge(key, 1, Integer::sum) > perAddress.getAsInt()) {
            release(key);
            shed.overAddressCap();
            IO.close(channel);
            return;
        }
        counted.put(channel, key);
    }

    @Override
    public void onAcceptFailed(SelectableChannel channel, Throwable cause) {
        forget(channel);
    }

    @Override
    public void onClosed(SelectableChannel channel) {
        forget(channel);
    }

    private void forget(SelectableChannel channel) {
        IpAddress key = counted.remove(channel);
        if (key != null) {
            release(key);
        }
    }

    private void release(IpAddress key) {
        open.computeIfPresent(key, (k, n) -> n == 1 ? null : n - 1);
    }

    /** The key a connection is counted under, or null when it is not counted (a trusted proxy, not a socket). */
    private IpAddress keyOf(SelectableChannel channel) {
        if (!(channel instanceof SocketChannel socket)) {
            return null;
        }
        SocketAddress remote;
        try {
            remote = socket.getRemoteAddress();
        } catch (IOException e) {
            return null; // closed already: Jetty's accept fails and nothing was counted
        }
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return null;
        }
        IpAddress address = IpAddress.ofBytes(inet.getAddress().getAddress());
        return trusted.contains(address) ? null : key(address);
    }

    /** What connections are counted under: an IPv4 address itself, an IPv6 address's /64. */
    static IpAddress key(IpAddress address) {
        return address.isIpv4() ? address : IpAddress.ofIpv6(address.high(), 0);
    }
}
