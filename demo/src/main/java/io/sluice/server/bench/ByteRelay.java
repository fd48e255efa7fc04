package io.sluice.server.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The load harness's floor for a proxy on the JVM: one thread, one NIO selector, each visitor's connection paired
 * with a connection of its own to the upstream and bytes copied both ways as they come, with no HTTP at all (no
 * parsing, no headers, no throttling, no pooling). Whatever a JVM front end does per request costs at least this
 * much; the harness measures it beside nginx and Sluice (docs/BENCHMARKS.md). Not part of the product, and not a
 * proxy anyone should run: it trusts the upstream and the visitor alike.
 * Usage: {@code java -cp sluice-demo.jar io.sluice.server.bench.ByteRelay PORT UPSTREAM_HOST UPSTREAM_PORT}.
 */
public final class ByteRelay {
    private static final int BUFFER_BYTES = 16 * 1024;

    private final Selector selector;
    private final ServerSocketChannel server;
    private final InetSocketAddress upstream;

    private ByteRelay(Selector selector, ServerSocketChannel server, InetSocketAddress upstream) {
        this.selector = selector;
        this.server = server;
        this.upstream = upstream;
    }

    public static void main(String[] args) throws IOException {
        InetSocketAddress listen = new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0]));
        open(listen, new InetSocketAddress(args[1], Integer.parseInt(args[2]))).run();
    }

    /** A relay listening on {@code listen} (port 0: any free port), not yet relaying: see {@link #run()}. */
    static ByteRelay open(InetSocketAddress listen, InetSocketAddress upstream) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(listen, 1024);
        server.configureBlocking(false);
        Selector selector = Selector.open();
        server.register(selector, SelectionKey.OP_ACCEPT);
        return new ByteRelay(selector, server, upstream);
    }

    int port() {
        return server.socket().getLocalPort();
    }

    /** Relays on this thread until {@link #close()}. */
    void run() throws IOException {
        try {
            while (selector.isOpen()) {
                selector.select(key -> {
                    if (key.isAcceptable()) {
                        accept();
                        return;
                    }
                    Side side = (Side) key.attachment();
                    try {
                        side.ready(key);
                    } catch (IOException e) {
                        side.close();
                    }
                });
            }
        } catch (ClosedSelectorException closed) {
            // close() ran meanwhile.
        }
    }

    /** Stops relaying: the listener and the selector close, and with them every pair's keys. */
    void close() throws IOException {
        server.close();
        selector.close();
    }

    private void accept() {
        while (true) {
            SocketChannel visitor;
            try {
                visitor = server.accept();
            } catch (IOException e) {
                return; // The listener is closing, or out of descriptors: the next selection tries again.
            }
            if (visitor == null) {
                return;
            }
            SocketChannel site = null;
            try {
                site = SocketChannel.open();
                site.setOption(StandardSocketOptions.TCP_NODELAY, true);
                site.connect(upstream); // blocking: once per visitor connection, not per request
                site.configureBlocking(false);
                visitor.setOption(StandardSocketOptions.TCP_NODELAY, true);
                visitor.configureBlocking(false);
                Side fromVisitor = new Side(visitor, site);
                Side fromSite = new Side(site, visitor);
                fromVisitor.peer = fromSite;
                fromSite.peer = fromVisitor;
                fromVisitor.readKey = visitor.register(selector, SelectionKey.OP_READ, fromVisitor);
                fromSite.readKey = site.register(selector, SelectionKey.OP_READ, fromSite);
            } catch (IOException e) {
                // No upstream: the visitor's connection is closed, as a proxy with nothing behind it would.
                closeQuietly(visitor);
                closeQuietly(site);
            }
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
    }

    /**
     * One direction: bytes read from {@code source} are written to {@code sink}; what the sink cannot take yet waits
     * in the buffer, and the source is not read again until it has gone (a slow reader slows the writer).
     */
    private static final class Side {
        private final SocketChannel source;
        private final SocketChannel sink;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        private SelectionKey readKey;
        private Side peer;

        Side(SocketChannel source, SocketChannel sink) {
            this.source = source;
            this.sink = sink;
        }

        /** {@code key} is this side's source being readable, or the sink (the peer's source) being writable. */
        void ready(SelectionKey key) throws IOException {
            if (key.isValid() && key.isWritable() && peer.buffer.position() > 0) {
                peer.flush();
            }
            if (key.isValid() && key.isReadable() && buffer.position() == 0) {
                int read = source.read(buffer);
                if (read < 0) {
                    close();
                    return;
                }
                flush();
            }
        }

        private void flush() throws IOException {
            buffer.flip();
            sink.write(buffer);
            buffer.compact();
            watch();
            peer.watch();
        }

        /**
         * This side's source is read while its buffer is empty, and watched for room to write while the other
         * direction's bytes wait for it (its key is the only one the channel has). Unchanged interest costs nothing.
         */
        private void watch() {
            readKey.interestOps((buffer.position() == 0 ? SelectionKey.OP_READ : 0)
                    | (peer.buffer.position() > 0 ? SelectionKey.OP_WRITE : 0));
        }

        void close() {
            closeQuietly(source);
            closeQuietly(sink);
        }
    }
}
