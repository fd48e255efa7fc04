package io.sluice.server.front.wire;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream on a loopback socket whose every byte is scripted: it records each request exactly as it
 * arrived and answers whatever the test's {@link Script} writes, including answers no well-behaved server
 * would give (a connection closed mid-body, a response with no framing).
 */
public final class RawUpstream implements AutoCloseable {

    /** What the upstream does with one connection. */
    @FunctionalInterface
    public interface Script {
        /** @param index which connection this is, counting from 0 in the order they were accepted */
        void serve(Connection connection, int index) throws IOException;
    }

    /** How the upstream answers a request, for scripts that answer every request the same way. */
    @FunctionalInterface
    public interface Answer {
        /** The raw bytes to write, or null to close the connection without answering. */
        byte[] to(RawMessage request) throws IOException;
    }

    private final ServerSocket listener;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "raw-upstream");
        thread.setDaemon(true);
        return thread;
    });
    private final List<RawMessage> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();

    public RawUpstream(Script script) throws IOException {
        this(script, 0);
    }

    /** @param sendBuffer the accepted sockets' send buffer in bytes, or 0 for the system's default */
    public RawUpstream(Script script, int sendBuffer) throws IOException {
        this(script, sendBuffer, InetAddress.getLoopbackAddress(), 0);
    }

    /** An upstream on {@code address:port} (port 0: a free one), e.g. a second host on 127.0.0.2. */
    public RawUpstream(Script script, InetAddress address, int port) throws IOException {
        this(script, 0, address, port);
    }

    private RawUpstream(Script script, int sendBuffer, InetAddress address, int port) throws IOException {
        listener = new ServerSocket(port, 50, address);
        threads.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket socket = listener.accept();
                    if (sendBuffer > 0) {
                        socket.setSendBufferSize(sendBuffer);
                    }
                    sockets.add(socket);
                    int index = accepted.getAndIncrement();
                    threads.execute(() -> {
                        try (socket) {
                            script.serve(new Connection(socket), index);
                        } catch (IOException ignored) {
                            // The proxy went away: that is for the test to judge from what it saw.
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    /** An upstream that answers every request on every connection with {@code answer}. */
    public static RawUpstream answering(Answer answer) throws IOException {
        return new RawUpstream(answers(answer));
    }

    /** The script of an upstream that answers every request on every connection with {@code answer}. */
    public static Script answers(Answer answer) {
        return (connection, index) -> {
            RawMessage request;
            while ((request = connection.readRequest()) != null) {
                byte[] bytes = answer.to(request);
                if (bytes == null) {
                    return;
                }
                connection.write(bytes);
            }
        };
    }

    /** A complete response with a {@code Content-Length} body. */
    public static byte[] ok(String body, String... extraHeaderLines) {
        StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\n");
        for (String line : extraHeaderLines) {
            head.append(line).append("\r\n");
        }
        head.append("Content-Length: ").append(body.length()).append("\r\n\r\n").append(body);
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/");
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Every request received so far, in arrival order. */
    public List<RawMessage> requests() {
        return requests;
    }

    public int connectionsAccepted() {
        return accepted.get();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        threads.shutdownNow();
    }

    /** One accepted connection. */
    public final class Connection {
        private final Socket socket;
        private final HttpReader reader;
        private final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.reader = new HttpReader(new BufferedInputStream(socket.getInputStream()));
            this.out = socket.getOutputStream();
        }

        /** The next request (recorded), or null when the proxy closed the connection. */
        public RawMessage readRequest() throws IOException {
            RawMessage request = reader.readRequest();
            if (request != null) {
                requests.add(request);
            }
            return request;
        }

        /** The next request's head only; its body stays unread on the socket (for upload tests). */
        public List<String> readHead() throws IOException {
            return reader.readHead();
        }

        public HttpReader reader() {
            return reader;
        }

        public void write(String raw) throws IOException {
            write(raw.getBytes(StandardCharsets.ISO_8859_1));
        }

        public void write(byte[] raw) throws IOException {
            out.write(raw);
            out.flush();
        }

        public OutputStream output() {
            return out;
        }

        /** Closes with a reset (RST) instead of an orderly FIN, as a crashed process's socket does. */
        public void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }
    }
}
