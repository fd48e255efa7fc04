package io.sluice.server.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The admin address a node gives the fleet ({@code GET /api/v1/cluster}'s {@code admin}, which a console opens to see
 * one node): the one its admin listener is bound to, except that a listener on every interface ({@code 0.0.0.0},
 * {@code [::]}) has no address another machine could use. Then the node advertises the address of its interface
 * toward the cluster's Redis (every node reaches Redis, so the nodes and the consoles that watch them are on that
 * network), found by the route the system would take, without sending anything; when Redis is on this machine (a
 * cluster on one machine, or a local proxy to a remote Redis), this machine's first address on an interface that is
 * up (IPv4 first); with none, loopback. Never {@code 127.0.0.1} while another address exists, which told every other
 * node and console to look for this node on themselves.
 */
public final class AdvertisedAddress {
    private static final Set<String> EVERY_INTERFACE = Set.of("", "0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0");

    private AdvertisedAddress() {
    }

    /**
     * @param listening the admin listener's URI with the host it is bound to ({@code https://0.0.0.0:9090/})
     * @param redis     the cluster's Redis (its first seed for a Redis Cluster)
     */
    public static URI of(URI listening, RedisEndpoint redis) {
        String host = listening.getHost();
        if (host != null && !EVERY_INTERFACE.contains(host)) {
            return listening;
        }
        InetAddress address = toward(redis.host(), redis.port());
        if (address == null) {
            address = firstInterfaceAddress();
        }
        String shown = address == null ? "127.0.0.1" : address instanceof Inet4Address ? address.getHostAddress()
                : "[" + address.getHostAddress() + "]";
        return URI.create(listening.getScheme() + "://" + shown + ":" + listening.getPort() + "/");
    }

    /** This machine's address on the route to {@code host}, or null when that is loopback or there is no route. */
    static InetAddress toward(String host, int port) {
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(host, port)); // a UDP "connect" picks the route; nothing is sent
            InetAddress local = probe.getLocalAddress();
            return local == null || local.isAnyLocalAddress() || local.isLoopbackAddress() ? null : local;
        } catch (IOException | UncheckedIOException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    /** The first address (IPv4 first, not loopback nor link-local) of an interface that is up, or null. */
    static InetAddress firstInterfaceAddress() {
        List<InetAddress> addresses = new ArrayList<>();
        try {
            for (NetworkInterface face : NetworkInterface.networkInterfaces().toList()) {
                if (face.isUp() && !face.isLoopback()) {
                    face.inetAddresses().filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress()
                            && !a.isAnyLocalAddress()).forEach(addresses::add);
                }
            }
        } catch (SocketException e) {
            return null;
        }
        return addresses.stream().min(Comparator.comparing(a -> a instanceof Inet4Address ? 0 : 1)).orElse(null);
    }
}
