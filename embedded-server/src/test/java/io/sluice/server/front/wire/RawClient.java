package io.sluice.server.front.wire;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A client that writes raw bytes to a socket on loopback and reads raw responses. */
public final class RawClient implements AutoCloseable {
    /** Generous: the machine may be loaded; a test that passes never waits this long. */
    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private final Socket socket;
    private final OutputStream out;
    private final HttpReader reader;

    public RawClient(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBuffer the socket's receive buffer in bytes, or 0 for the system's default */
    public RawClient(int port, int receiveBuffer) throws IOException {
        this(null, port, receiveBuffer);
    }

    /**
     * A client from {@code localAddress} (a loopback address such as 127.0.0.2: a distinct client address on one
     * machine), to port {@code port} of 127.0.0.1.
     */
    public RawClient(String localAddress, int port) throws IOException {
        this(localAddress, port, 0);
    }

    private RawClient(String localAddress, int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        out = socket.getOutputStream();
        reader = new HttpReader(new BufferedInputStream(socket.getInputStream()));
    }

    public RawClient send(String raw) throws IOException {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawClient send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
        return this;
    }

    public OutputStream output() {
        return out;
    }

    /** The next final response (1xx skipped), or null if the connection ended first. */
    public RawMessage response() throws IOException {
        return reader.readFinalResponse(false, new ArrayList<>());
    }

    /** The next final response to a HEAD request. */
    public RawMessage responseToHead() throws IOException {
        return reader.readFinalResponse(true, new ArrayList<>());
    }

    /** The next final response, with any interim (1xx) responses before it added to {@code interim}. */
    public RawMessage response(List<RawMessage> interim) throws IOException {
        return reader.readFinalResponse(false, interim);
    }

    public HttpReader reader() {
        return reader;
    }

    /** True when the server closed the connection (end of stream or reset) rather than leaving it open. */
    public boolean closedByServer() throws IOException {
        try {
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    /**
     * What the server sent before it closed the connection (end of stream or reset): usually nothing, an error
     * response at most; null when it left the connection open for the read timeout.
     */
    public String sentUntilClosed() throws IOException {
        StringBuilder sent = new StringBuilder();
        try {
            int next;
            while ((next = socket.getInputStream().read()) >= 0) {
                sent.append((char) next);
            }
            return sent.toString();
        } catch (SocketTimeoutException e) {
            return null;
        } catch (SocketException e) {
            return sent.toString();
        }
    }

    /** True when the server neither sent anything nor closed the connection for {@code millis}. */
    public boolean quietFor(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            socket.getInputStream().read();
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (SocketException e) {
            return false;
        } finally {
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
