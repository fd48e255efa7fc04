package io.sluice.server.hostile;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Strangers holding the admin listener's connections: sockets from 127.0.1.x that send nothing, ten per address,
 * re-opened whenever the server closes one. Counts what the server closed.
 */
final class IdleSockets {
    private static final int PER_ADDRESS = 10;

    private final URI admin;
    private final int sockets;

    IdleSockets(URI admin, int sockets) {
        this.admin = admin;
        this.sockets = sockets;
    }

    Void run(AtomicBoolean attacking, Map<String, AtomicInteger> attacks) throws InterruptedException {
        AtomicInteger closed = attacks.computeIfAbsent("admin idle closed", k -> new AtomicInteger());
        List<Socket> open = new ArrayList<>();
        int next = 0;
        try {
            while (attacking.get()) {
                for (Iterator<Socket> it = open.iterator(); it.hasNext(); ) {
                    Socket socket = it.next();
                    if (closedByServer(socket)) {
                        closed.incrementAndGet();
                        close(socket);
                        it.remove();
                    }
                }
                while (open.size() < sockets) {
                    String from = "127.0.1." + (1 + next++ / PER_ADDRESS % 200);
                    Socket socket = new Socket();
                    try {
                        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
                        socket.connect(new InetSocketAddress(admin.getHost(), admin.getPort()), 5_000);
                        socket.setSoTimeout(1);
                        open.add(socket);
                    } catch (IOException e) {
                        closed.incrementAndGet();
                        close(socket);
                        break;
                    }
                }
                Thread.sleep(1_000);
            }
        } finally {
            open.forEach(IdleSockets::close);
        }
        return null;
    }

    private static boolean closedByServer(Socket socket) {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
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
