package io.sluice.server.admin;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Who holds the admin listener's connections, so that no number of strangers can lock the operators out
 * (issue #27: 300 idle sockets filled the 256 connections and the operator's calls waited in the kernel's
 * backlog until the idle timeout).
 *
 * <p>A connection is a <em>stranger</em> from its accept until a request on it presents a live token
 * ({@link TokenAuthentication} says so through {@link #authenticated}), and again when a later request on it
 * does not. Three rules, all on the network connection (a TLS connection counts once):
 * <ol>
 *   <li><b>Deadline.</b> A stranger must authenticate within {@link Rules#strangerDeadline()} of its accept (or of
 *       turning stranger again), or it is closed: an idle socket, a TLS handshake never finished, a request head
 *       trickled a byte at a time, a 401 followed by silence. An operator's client sends its first request head
 *       with its token within milliseconds of connecting.</li>
 *   <li><b>Per address.</b> One address (an IPv6 /64) holds at most {@link Rules#strangersPerAddress()}
 *       strangers; one more is closed as soon as it is accepted. Operators' connections are not counted: a
 *       workstation or a fleet of crawler workers behind one address may hold as many as it authenticates.</li>
 *   <li><b>Room for operators.</b> The listener holds at most {@code maxConnections}. At the limit a newcomer
 *       closes the <em>oldest</em> stranger to make room; only when every connection is an operator's is the
 *       newcomer closed instead.</li>
 * </ol>
 *
 * <p>Why evict the oldest stranger rather than keep a reserved share for operators: an operator's connection is
 * itself a stranger until its first request's head arrives, so a share the strangers filled would leave it where
 * Jetty's {@code NetworkConnectionLimit} left it (that limit stops accepting, so the kernel holds the newcomer
 * behind the idle sockets). Evicting the oldest makes the operator's connection the newest stranger, the last to
 * be evicted: to push it out before its token arrives an attacker must open {@code maxConnections} connections
 * within those milliseconds, and every connection the attacker keeps costs a reconnect per deadline.
 *
 * <p>Installed on a connector with {@link #install}; a request finds it through its connector, so the admin
 * handlers work on a listener without it too (tests on a {@code LocalConnector}, embedded mode).
 */
public final class AdminConnections implements Connection.Listener {
    private final Scheduler scheduler;
    private final int maxConnections;
    private final Rules rules;
    private final Map<EndPoint, Peer> peers = new HashMap<>();
    /** Strangers, oldest first (a connection turned stranger again goes to the end). */
    private final LinkedHashSet<Peer> strangers = new LinkedHashSet<>();
    private final Map<Object, Integer> strangersByAddress = new HashMap<>();
    private long refusedPerAddress;
    private long refusedFull;
    private long evicted;
    private long expired;

    /**
     * How strangers are held on the admin listener.
     *
     * @param strangersPerAddress connections one address (an IPv6 /64) may hold before a request on them presents a
     *                            live token
     * @param strangerDeadline    how long a connection may stay without a request that presents a live token
     */
    public record Rules(int strangersPerAddress, Duration strangerDeadline) {
        public static final Rules DEFAULTS = new Rules(16, Duration.ofSeconds(5));

        public Rules {
            if (strangersPerAddress < 1 || strangerDeadline == null || strangerDeadline.isNegative()
                    || strangerDeadline.isZero()) {
                throw new IllegalArgumentException("the admin listener needs at least one connection per address "
                        + "and a positive deadline for a first request");
            }
        }
    }

    /** What the listener holds now and what it closed since start. */
    public record Counts(int strangers, int operators, long refusedPerAddress, long refusedFull, long evicted,
                         long expired) {
    }

    private AdminConnections(Scheduler scheduler, int maxConnections, Rules rules) {
        this.scheduler = scheduler;
        this.maxConnections = maxConnections;
        this.rules = rules;
    }

    /** Guards {@code connector} (before it starts): it holds at most {@code maxConnections}, under {@code rules}. */
    public static AdminConnections install(ServerConnector connector, int maxConnections, Rules rules) {
        AdminConnections guard = new AdminConnections(connector.getScheduler(), maxConnections, rules);
        connector.addBean(guard);
        return guard;
    }

    /**
     * Records whether {@code request} presented a live token: its connection is an operator's from now on, or a
     * stranger again. Does nothing on a listener without the guard.
     */
    static void authenticated(Request request, boolean live) {
        Connector connector = request.getConnectionMetaData().getConnector();
        AdminConnections guard = connector == null ? null : connector.getBean(AdminConnections.class);
        if (guard != null) {
            guard.mark(network(request.getConnectionMetaData().getConnection().getEndPoint()), live);
        }
    }

    /** Connections the listener holds at most. */
    public int maxConnections() {
        return maxConnections;
    }

    public synchronized Counts counts() {
        return new Counts(strangers.size(), peers.size() - strangers.size(), refusedPerAddress, refusedFull, evicted,
                expired);
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        if (endPoint instanceof EndPoint.Wrapper) {
            return; // the decrypted side of a TLS connection: its network connection is the one counted
        }
        Object address = addressOf(endPoint.getRemoteSocketAddress());
        List<EndPoint> close = new ArrayList<>(1);
        synchronized (this) {
            if (strangersByAddress.getOrDefault(address, 0) >= rules.strangersPerAddress()) {
                refusedPerAddress++;
                close.add(endPoint);
            } else {
                Peer peer = new Peer(endPoint, address);
                peers.put(endPoint, peer);
                becomeStranger(peer);
                if (peers.size() > maxConnections) {
                    Peer oldest = strangers.iterator().next();
                    if (oldest != peer) {
                        evicted++;
                    } else {
                        refusedFull++;
                    }
                    forget(oldest);
                    close.add(oldest.endPoint);
                }
            }
        }
        close.forEach(EndPoint::close);
    }

    @Override
    public void onClosed(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        if (!(endPoint instanceof EndPoint.Wrapper)) {
            synchronized (this) {
                Peer peer = peers.get(endPoint);
                if (peer != null) {
                    forget(peer);
                }
            }
        }
    }

    private void mark(EndPoint endPoint, boolean live) {
        synchronized (this) {
            Peer peer = peers.get(endPoint);
            if (peer == null || peer.stranger != live) {
                return;
            }
            if (live) {
                leaveStrangers(peer);
            } else {
                becomeStranger(peer);
            }
        }
    }

    /** Held: the peer counts as a stranger of its address, and its deadline runs from now. */
    private void becomeStranger(Peer peer) {
        peer.stranger = true;
        strangers.add(peer);
        strangersByAddress.merge(peer.address, 1, Integer::sum);
        peer.deadline = scheduler.schedule(() -> expire(peer), rules.strangerDeadline().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void leaveStrangers(Peer peer) {
        peer.stranger = false;
        strangers.remove(peer);
        strangersByAddress.computeIfPresent(peer.address, (key, n) -> n == 1 ? null : n - 1);
        peer.deadline.cancel();
    }

    private void forget(Peer peer) {
        if (peers.remove(peer.endPoint, peer) && peer.stranger) {
            leaveStrangers(peer);
        }
    }

    private void expire(Peer peer) {
        synchronized (this) {
            if (peers.get(peer.endPoint) != peer || !peer.stranger) {
                return;
            }
            expired++;
            forget(peer);
        }
        peer.endPoint.close();
    }

    /** The network end of a request's connection (a TLS connection's decrypted end wraps it). */
    private static EndPoint network(EndPoint endPoint) {
        EndPoint end = endPoint;
        while (end instanceof EndPoint.Wrapper wrapper) {
            end = wrapper.unwrap();
        }
        return end;
    }

    /** The address a stranger counts against: an IPv4 address, or an IPv6 address's /64. */
    static Object addressOf(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress socket) || socket.getAddress() == null) {
            return String.valueOf(remote);
        }
        InetAddress address = socket.getAddress();
        if (address instanceof Inet6Address) {
            return ByteBuffer.wrap(address.getAddress(), 0, 8).slice();
        }
        return address;
    }

    /** One network connection: where it comes from, and whether it has yet to present a live token. */
    private static final class Peer {
        final EndPoint endPoint;
        final Object address;
        boolean stranger;
        Scheduler.Task deadline;

        Peer(EndPoint endPoint, Object address) {
            this.endPoint = endPoint;
            this.address = address;
        }
    }
}
