package io.sluice.console.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A TLS server on loopback that presents a chosen certificate and records every byte a client sends it after the
 * handshake (the HTTP request, the token), answering nothing: the server a console must not trust by accident.
 */
public final class RogueTlsServer implements AutoCloseable {
    private final SSLServerSocket socket;
    private final Thread acceptor;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();

    public RogueTlsServer(TestCertificates.Issued identity) throws GeneralSecurityException, IOException {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(identity.keyStore(), identity.password());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), null, null);
        socket = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "rogue-tls");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public URI uri() {
        return URI.create("https://127.0.0.1:" + socket.getLocalPort() + "/");
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** Connections accepted so far (a handshake attempt each). */
    public int connections() {
        return connections.get();
    }

    /** What clients sent after their handshakes, all connections together. */
    public String received() {
        synchronized (received) {
            return received.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * Waits until every connection accepted so far has ended (handshake refused, or the client closed), so what
     * was received is all there will be; fails after {@code patience}.
     */
    public void awaitQuiet(Duration patience) {
        try {
            WaitForAsyncUtils.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS,
                    () -> connections.get() > 0 && finished.get() >= connections.get());
        } catch (TimeoutException e) {
            throw new AssertionError("the rogue server's connections did not end within " + patience
                    + " (accepted " + connections.get() + ", ended " + finished.get() + ")");
        }
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                SSLSocket client = (SSLSocket) socket.accept();
                connections.incrementAndGet();
                Thread reader = new Thread(() -> record(client), "rogue-tls-reader");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void record(SSLSocket client) {
        try (client) {
            client.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
            client.startHandshake();
            InputStream in = client.getInputStream();
            byte[] buffer = new byte[4096];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                synchronized (received) {
                    received.write(buffer, 0, n);
                }
            }
        } catch (SocketTimeoutException e) {
            // A client that stays silent: nothing more to record.
        } catch (IOException e) {
            // The client refused the certificate (or hung up): whatever it sent before is recorded.
        } finally {
            finished.incrementAndGet();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
