package io.sluice.server.hostile;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 client on one connection from a chosen loopback address (127.0.0.0/8 is all this machine's), so a test
 * can play many clients: the front end tells them apart by their address, as it would on the internet.
 */
public final class LoopbackClient implements AutoCloseable {
    private static final int TIMEOUT_MILLIS = 30_000;

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    public LoopbackClient(String from, URI server) throws IOException {
        socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), TIMEOUT_MILLIS);
        socket.setSoTimeout(TIMEOUT_MILLIS);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
        host = server.getHost() + ":" + server.getPort();
    }

    /** GET {@code path} as {@code userAgent}, reading the whole response; its status, or -1 if the server closed. */
    public int get(String path, String userAgent) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: " + userAgent
                + "\r\nAccept: text/html\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return readResponse();
    }

    private int readResponse() throws IOException {
        String status = line();
        if (status == null) {
            return -1;
        }
        long length = 0;
        boolean chunked = false;
        for (String line = line(); line != null && !line.isEmpty(); line = line()) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(line.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            skipChunks();
        } else {
            skip(length);
        }
        return Integer.parseInt(status.split(" ")[1]);
    }

    private void skipChunks() throws IOException {
        while (true) {
            String sizeLine = line();
            if (sizeLine == null) {
                throw new IOException("connection closed inside a chunked body");
            }
            long size = Long.parseLong(sizeLine.split(";")[0].strip(), 16);
            if (size == 0) {
                for (String trailer = line(); trailer != null && !trailer.isEmpty(); trailer = line()) {
                    continue; // trailers are not this client's business
                }
                return;
            }
            skip(size);
            line();
        }
    }

    /** The next line without its CRLF, or null if the connection ended before it began. */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                if (line.length() == 0) {
                    return null;
                }
                throw new IOException("connection closed inside a line");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    private void skip(long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed inside a body");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
