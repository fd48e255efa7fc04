package io.sluice.server.demo;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.io.Transport;

/**
 * TCP whose connections leave from one local address: given to a request ({@code request.transport(...)}), it sends
 * that request from the address, so one {@code HttpClient} (one selector thread) sends for hundreds of loopback
 * addresses. A client bound to one address each would take a selector thread per address, and the demo's scraper
 * fleet has 256 of them. Jetty keys its connection pools by origin and tag, not by transport, so a request is tagged
 * with its transport as well: each address keeps connections of its own, and a connection made from one address
 * never carries another's request (without the tag, a fleet's requests went out over whichever six connections
 * were open, from three addresses of its 256).
 */
final class FromAddress extends Transport.TCPIP {
    private final InetSocketAddress local;

    FromAddress(String address) {
        this.local = new InetSocketAddress(address, 0);
    }

    /** {@code request}, sent from this address: its transport, and its tag, which keys Jetty's connection pools. */
    Request apply(Request request) {
        return request.transport(this).tag(this);
    }

    @Override
    public SelectableChannel newSelectableChannel() throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.bind(local);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    @Override
    public int hashCode() {
        return local.hashCode();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FromAddress from && from.local.equals(local);
    }

    @Override
    public String toString() {
        return "tcp from " + local.getHostString();
    }
}
