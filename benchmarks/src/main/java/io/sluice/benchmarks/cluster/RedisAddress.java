package io.sluice.benchmarks.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocketFactory;

/**
 * One Redis server the benchmark reads its figures from, and the few commands it sends it ({@code INFO},
 * {@code CONFIG RESETSTAT}, {@code CLUSTER ...}): each over a fresh connection, never on the measured path, so a
 * plain RESP exchange is enough and the nodes' own client (Lettuce) stays out of the counts' way.
 *
 * @param username an ACL user, or null
 * @param password null for none
 */
record RedisAddress(String host, int port, boolean tls, String username, String password) {
    private static final int TIMEOUT_MILLIS = 5_000;

    /** {@code HOST:PORT}, for the report. */
    String name() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * Sends one command and returns its reply as text: a simple string, an integer, a bulk string (null when nil).
     *
     * @throws IOException when the server cannot be reached or answers with an error (its words in the message)
     */
    String command(String... words) throws IOException {
        try (Socket socket = tls ? SSLSocketFactory.getDefault().createSocket() : new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                send(out, username == null ? new String[] {"AUTH", password}
                        : new String[] {"AUTH", username, password});
                reply(in);
            }
            send(out, words);
            return reply(in);
        }
    }

    private static void send(OutputStream out, String[] words) throws IOException {
        StringBuilder resp = new StringBuilder("*").append(words.length).append("\r\n");
        for (String word : words) {
            resp.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                    .append("\r\n");
        }
        out.write(resp.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private String reply(InputStream in) throws IOException {
        String line = line(in);
        if (line.isEmpty()) {
            throw new IOException(name() + " sent an empty reply line");
        }
        return switch (line.charAt(0)) {
            case '+', ':' -> line.substring(1);
            case '-' -> throw new IOException(name() + " answered " + line.substring(1));
            case '$' -> bulk(in, Integer.parseInt(line.substring(1)));
            default -> throw new IOException(name() + " sent a reply this reader does not take: " + line);
        };
    }

    private String bulk(InputStream in, int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length || in.readNBytes(2).length < 2) {
            throw new IOException(name() + " closed the connection within a reply");
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    private String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int previous = -1;
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (previous == '\r' && b == '\n') {
                byte[] all = bytes.toByteArray();
                return new String(all, 0, all.length - 1, StandardCharsets.UTF_8);
            }
            bytes.write(b);
            previous = b;
        }
        throw new IOException(name() + " closed the connection without a reply");
    }

    @Override
    public String toString() {
        return name(); // never the password
    }
}
