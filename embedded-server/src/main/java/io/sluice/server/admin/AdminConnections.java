package io.sluice.server.admin;

import io.sluice.server.state.Role;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Who holds the admin listener's connections, so that no number of strangers, nor a crawl fleet, can lock the
 * operators out (issue #27: 300 idle sockets filled the 256 connections and the operator's calls waited in the
 * kernel's backlog until the idle timeout; issue 50: eight held permit calls of one worker token filled a listener of
 * 8 and the admin's next call was closed on arrival), and no operator rule costs a legitimate fleet behind one address
 * a call (issue 50: 40 workers behind one address, a new connection per call, lost 1.1% of their calls to the
 * per-address cap on strangers).
 *
 * <p>A connection is a <em>stranger</em> from its accept until a request on it presents a live token
 * ({@link TokenAuthentication} says so through {@link #authenticated}), and again when a later request on it
 * does not; then it is its token's role's. The rules, all on the network connection (a TLS connection counts once):
 * <ol>
 *   <li><b>Deadline.</b> A stranger must authenticate within {@link Rules#strangerDeadline()} of its accept (or of
 *       turning stranger again), or it is closed: an idle socket, a TLS handshake never finished, a request head
 *       trickled a byte at a time, a 401 followed by silence. An operator's client sends its first request head
 *       with its token within milliseconds of connecting.</li>
 *   <li><b>Room for operators.</b> The listener holds at most {@code maxConnections}. At the limit a newcomer
 *       closes a stranger to make room: the oldest of those beyond their address's share
 *       ({@link Rules#strangersPerAddress()}: one address, an IPv6 /64, holding more strangers than that), else the
 *       oldest of all; only when every connection is authenticated is the newcomer closed instead.</li>
 *   <li><b>Room by role.</b> Authenticated connections are never closed to make room, so the roles below
 *       {@code admin} may not take the last of it: {@code read} and {@code worker} connections together hold at most
 *       {@code maxConnections - reserve}, {@code worker} connections at most {@code maxConnections - 2 * reserve}
 *       ({@code reserve} is a sixteenth of the listener, at least 2). A call beyond its role's room is answered
 *       {@code 503} with {@code Retry-After} and its connection closed: a clear answer, never a silent close.</li>
 *   <li><b>Held permit calls.</b> One token holds at most a quarter of the workers' room in permit calls waiting for
 *       a grant ({@link #holdPermitCall}); past that, a call is answered at once with its wait, as if it had not
 *       asked to be held.</li>
 * </ol>
 *
 * <p>Why a share per address and not a cap: a stranger beyond its address's share used to be closed on accept, and a
 * fleet behind one NAT whose connections outran the server's reading of their heads lost calls (44% on a loaded
 * 2-core machine: {@code AdminRoomTest}). Nothing tells at accept a worker about to send its token from an idle
 * socket, so the newcomer is always taken, and the share decides who goes first when the listener is full: an address
 * holding more than its share only ever pushes out its own strangers, never another address's within its share.
 *
 * <p>Why evict rather than keep a reserved share for strangers: an operator's connection is itself a stranger until
 * its first request's head arrives, so a share the strangers filled would leave it where Jetty's
 * {@code NetworkConnectionLimit} left it (that limit stops accepting, so the kernel holds the newcomer behind the idle
 * sockets). Evicting the oldest makes the operator's connection the newest stranger, the last to be evicted: to push
 * it out before its token arrives an attacker must open {@code maxConnections} connections within those milliseconds,
 * and every connection the attacker keeps costs a reconnect per deadline.
 *
 * <p>Installed on a connector with {@link #install}; a request finds it through its connector, so the admin
 * handlers work on a listener without it too (tests on a {@code LocalConnector}, embedded mode).
 */
public final class AdminConnections implements Connection.Listener {
    private final Scheduler scheduler;
    private final int maxConnections;
    private final Rules rules;
    private final Room room;
    private final Map<EndPoint, Peer> peers = new HashMap<>();
    /** Strangers, oldest first (a connection turned stranger again goes to the end). */
    private final LinkedHashSet<Peer> strangers = new LinkedHashSet<>();
    private final Map<Object, Integer> strangersByAddress = new HashMap<>();
    private final Map<Role, Integer> byRole = new EnumMap<>(Role.class);
    private final Map<String, Integer> heldByToken = new HashMap<>();
    private int held;
    private long evictedOverShare;
    private long refusedFull;
    private long evicted;
    private long expired;
    private long refusedRoom;
    private long notHeld;

    /**
     * How strangers are held on the admin listener.
     *
     * @param strangersPerAddress an address's (an IPv6 /64's) share of strangers: at the limit, one beyond its
     *                            address's share is closed before any other
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

    /**
     * The room each role may take of a listener of {@code maxConnections}.
     *
     * @param reserve       connections kept from {@code read} and {@code worker} for {@code admin}, and as many again
     *                      from {@code worker} for {@code read}: a sixteenth of the listener, at least 2
     * @param readers       {@code read} and {@code worker} connections together, at most
     * @param workers       {@code worker} connections, at most
     * @param heldPerToken  permit calls one token may have held at once: a quarter of the workers' room, at least 1
     */
    public record Room(int reserve, int readers, int workers, int heldPerToken) {
        static Room of(int maxConnections) {
            int reserve = Math.max(2, maxConnections / 16);
            int workers = Math.max(1, maxConnections - 2 * reserve);
            return new Room(reserve, Math.max(1, maxConnections - reserve), workers, Math.max(1, workers / 4));
        }
    }

    /**
     * What the listener holds now and what it closed or refused since start.
     *
     * @param strangers         connections that have not presented a live token
     * @param operators         connections that have, whatever their role
     * @param workers           of those, {@code worker} connections
     * @param readers           of those, {@code read} connections
     * @param held              permit calls held now, waiting for a grant
     * @param evictedOverShare  strangers closed to make room, beyond their address's share
     * @param refusedFull       newcomers closed: every connection was an operator's
     * @param evicted           strangers closed to make room, the oldest
     * @param expired           strangers closed at the deadline
     * @param refusedRoom       calls with a live token refused ({@code 503}): the room left was kept for a higher role
     * @param notHeld           permit calls answered at once: their token had its share of held calls
     */
    public record Counts(int strangers, int operators, int workers, int readers, int held, long evictedOverShare,
                         long refusedFull, long evicted, long expired, long refusedRoom, long notHeld) {
        /** An empty listener. */
        public static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    private AdminConnections(Scheduler scheduler, int maxConnections, Rules rules) {
        this.scheduler = scheduler;
        this.maxConnections = maxConnections;
        this.rules = rules;
        this.room = Room.of(maxConnections);
    }

    /** Guards {@code connector} (before it starts): it holds at most {@code maxConnections}, under {@code rules}. */
    public static AdminConnections install(ServerConnector connector, int maxConnections, Rules rules) {
        AdminConnections guard = new AdminConnections(connector.getScheduler(), maxConnections, rules);
        connector.addBean(guard);
        return guard;
    }

    /**
     * Records what {@code request} presented: a live token of {@code role}, or none ({@code role} null). With none,
     * or with a token whose role has no room left, its connection is a stranger (again). Always true on a listener
     * without the guard.
     *
     * @return false when the token's role has no room left: the call must be refused and the connection closed
     */
    static boolean authenticated(Request request, Role role) {
        AdminConnections guard = of(request);
        return guard == null || guard.mark(network(request.getConnectionMetaData().getConnection().getEndPoint()),
                role);
    }

    /**
     * Whether a permit call of {@code token} may be held waiting for a grant (its token holds fewer than its share);
     * if so it counts until {@link #releasePermitCall}. Always true on a listener without the guard.
     */
    static boolean holdPermitCall(Request request, String token) {
        AdminConnections guard = of(request);
        return guard == null || guard.hold(token);
    }

    /** A held permit call of {@code token} is answered (or failed). */
    static void releasePermitCall(Request request, String token) {
        AdminConnections guard = of(request);
        if (guard != null) {
            guard.release(token);
        }
    }

    private static AdminConnections of(Request request) {
        Connector connector = request.getConnectionMetaData().getConnector();
        return connector == null ? null : connector.getBean(AdminConnections.class);
    }

    /** Connections the listener holds at most. */
    public int maxConnections() {
        return maxConnections;
    }

    /** The room each role may take. */
    public Room room() {
        return room;
    }

    public synchronized Counts counts() {
        return new Counts(strangers.size(), peers.size() - strangers.size(), byRole.getOrDefault(Role.WORKER, 0),
                byRole.getOrDefault(Role.READ, 0), held, evictedOverShare, refusedFull, evicted, expired, refusedRoom,
                notHeld);
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        if (endPoint instanceof EndPoint.Wrapper) {
            return; // the decrypted side of a TLS connection: its network connection is the one counted
        }
        Object address = addressOf(endPoint.getRemoteSocketAddress());
        EndPoint close = null;
        synchronized (this) {
            Peer peer = new Peer(endPoint, address);
            peers.put(endPoint, peer);
            becomeStranger(peer);
            if (peers.size() > maxConnections) {
                Peer out = toEvict();
                if (out == peer) {
                    refusedFull++;
                } else if (strangersByAddress.get(out.address) > rules.strangersPerAddress()) {
                    evictedOverShare++;
                } else {
                    evicted++;
                }
                forget(out);
                close = out.endPoint;
            }
        }
        if (close != null) {
            close.close();
        }
    }

    /** The stranger to close for room: the oldest beyond its address's share, else the oldest. */
    private Peer toEvict() {
        for (Peer stranger : strangers) {
            if (strangersByAddress.get(stranger.address) > rules.strangersPerAddress()) {
                return stranger;
            }
        }
        return strangers.iterator().next();
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

    private synchronized boolean mark(EndPoint endPoint, Role role) {
        Peer peer = peers.get(endPoint);
        if (peer == null || (!peer.stranger && peer.role == role)) {
            return true;
        }
        if (role == null) {
            if (!peer.stranger) {
                leaveRole(peer);
                becomeStranger(peer);
            }
            return true;
        }
        if (!peer.stranger) {
            leaveRole(peer);
        }
        if (!roomFor(role)) {
            refusedRoom++;
            if (!peer.stranger) {
                becomeStranger(peer);
            }
            return false;
        }
        if (peer.stranger) {
            leaveStrangers(peer);
        }
        peer.role = role;
        byRole.merge(role, 1, Integer::sum);
        return true;
    }

    /** Whether one more connection of {@code role} leaves the room kept for the roles above it. */
    private boolean roomFor(Role role) {
        int workers = byRole.getOrDefault(Role.WORKER, 0);
        int readers = byRole.getOrDefault(Role.READ, 0);
        return switch (role) {
            case ADMIN -> true;
            case READ -> readers + workers < room.readers();
            case WORKER -> workers < room.workers() && readers + workers < room.readers();
        };
    }

    private void leaveRole(Peer peer) {
        byRole.computeIfPresent(peer.role, (key, n) -> n == 1 ? null : n - 1);
        peer.role = null;
    }

    private synchronized boolean hold(String token) {
        int now = heldByToken.getOrDefault(token, 0);
        if (now >= room.heldPerToken()) {
            notHeld++;
            return false;
        }
        heldByToken.put(token, now + 1);
        held++;
        return true;
    }

    private synchronized void release(String token) {
        Integer now = heldByToken.get(token);
        if (now != null) {
            if (now == 1) {
                heldByToken.remove(token);
            } else {
                heldByToken.put(token, now - 1);
            }
            held--;
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
        if (peers.remove(peer.endPoint, peer)) {
            if (peer.stranger) {
                leaveStrangers(peer);
            } else {
                leaveRole(peer);
            }
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

    /** One network connection: where it comes from, and whether it has yet to present a live token, or whose. */
    private static final class Peer {
        final EndPoint endPoint;
        final Object address;
        boolean stranger;
        Role role;
        Scheduler.Task deadline;

        Peer(EndPoint endPoint, Object address) {
            this.endPoint = endPoint;
            this.address = address;
        }
    }
}
