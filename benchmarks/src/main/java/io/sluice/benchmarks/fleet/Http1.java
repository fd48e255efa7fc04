package io.sluice.benchmarks.fleet;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection from a given local address, blocking, as a plain scraper's HTTP library keeps
 * one: a GET at a time, the answer read whole (by {@code Content-Length}, chunked, or to the end). A connection the
 * server closed between requests is opened again once, from the same address.
 */
final class Http1 implements Closeable {
    /** An answer: its status, headers (names in lower case, in order) and body. */
    record Answer(int status, List<String[]> headers, String body) {
        /** The last value of header {@code name} (lower case), or null. */
        String header(String name) {
            String value = null;
            for (String[] header : headers) {
                if (header[0].equals(name)) {
                    value = header[1];
                }
            }
            return value;
        }

        /** The value this answer sets for cookie {@code name} ({@code ""} when it clears it), or null. */
        String cookie(String name) {
            String value = null;
            for (String[] header : headers) {
                if (header[0].equals("set-cookie") && header[1].startsWith(name + "=")) {
                    int end = header[1].indexOf(';');
                    value = header[1].substring(name.length() + 1, end < 0 ? header[1].length() : end);
                }
            }
            return value;
        }
    }

    private final InetAddress local;
    private final InetSocketAddress server;
    private final String host;
    private final int timeoutMillis;
    private volatile Socket socket;
    private InputStream in;
    private OutputStream out;
    private volatile boolean closed;

    Http1(InetAddress local, InetSocketAddress server, int timeoutMillis) {
        this.local = local;
        this.server = server;
        this.host = server.getHostString() + ":" + server.getPort();
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * GETs {@code pathQuery} with a browser's {@code Accept} and the given user agent (and pass cookie, when not
     * null): no {@code Sec-Fetch-*} headers, as an HTTP library sends.
     */
    Answer get(String pathQuery, String userAgent, String cookie) throws IOException {
        StringBuilder head = new StringBuilder(512).append("GET ").append(pathQuery).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append("\r\n")
                .append("User-Agent: ").append(userAgent).append("\r\n")
                .append("Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n")
                .append("Accept-Language: en-US,en;q=0.9\r\n");
        if (cookie != null) {
            head.append("Cookie: ").append(cookie).append("\r\n");
        }
        byte[] request = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        boolean reused = socket != null;
        try {
            return exchange(request);
        } catch (IOException e) {
            disconnect();
            if (!reused || closed) {
                throw e;
            }
            return exchange(request); // the server closed an idle connection: once more on a new one
        }
    }

    private Answer exchange(byte[] request) throws IOException {
        if (closed) {
            throw new IOException("closed");
        }
        if (socket == null) {
            Socket opened = new Socket();
            opened.setReuseAddress(true);
            opened.bind(new InetSocketAddress(local, 0));
            opened.connect(server, timeoutMillis);
            opened.setSoTimeout(timeoutMillis);
            opened.setTcpNoDelay(true);
            socket = opened;
            in = new BufferedInputStream(opened.getInputStream(), 8192);
            out = opened.getOutputStream();
            if (closed) {
                disconnect();
                throw new IOException("closed");
            }
        }
        out.write(request);
        out.flush();
        String status = line();
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("not HTTP: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        List<String[]> headers = new ArrayList<>();
        long length = -1;
        boolean chunked = false;
        boolean close = status.startsWith("HTTP/1.0");
        for (String line = line(); !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            headers.add(new String[] {name, value});
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.toLowerCase(Locale.ROOT).contains("close");
                default -> { }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(length > 0 ? (int) Math.min(length, 1 << 20) : 1024);
        if (chunked) {
            for (long size = chunkSize(); size > 0; size = chunkSize()) {
                copy(body, size);
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (length >= 0) {
            copy(body, length);
        } else if (code >= 200 && code != 204 && code != 304) {
            in.transferTo(body);
            close = true;
        }
        if (close) {
            disconnect();
        }
        return new Answer(code, headers, body.toString(StandardCharsets.UTF_8));
    }

    private long chunkSize() throws IOException {
        String line = line();
        int semicolon = line.indexOf(';');
        return Long.parseLong((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
    }

    private void copy(ByteArrayOutputStream body, long length) throws IOException {
        byte[] buffer = new byte[8192];
        long left = length;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new EOFException("the body ended early");
            }
            body.write(buffer, 0, read);
            left -= read;
        }
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    private void disconnect() {
        Socket open = socket;
        socket = null;
        if (open != null) {
            try {
                open.close();
            } catch (IOException e) {
                // going anyway
            }
        }
    }

    /** Closes the connection for good, from any thread: a request blocked on it fails. */
    @Override
    public void close() {
        closed = true;
        disconnect();
    }
}
