package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.AdminOptions;
import io.sluice.server.ConnectionLimits;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import io.sluice.server.tls.AdminTls;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin listener under idle and slow sockets from many addresses ({@link AdminConnections}), on real sockets
 * over loopback: strangers come from 127.0.0.2 and up, the operator from 127.0.0.1.
 */
class AdminConnectionsTest {
    /** What "promptly" means for an operator's call on a busy two-core machine (the lockout was 5 s and more). */
    private static final long PROMPT_MILLIS = 3_000;

    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private SluiceServer server;
    private final List<Socket> strangers = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : strangers) {
            socket.close();
        }
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void threeHundredIdleSocketsFromManyAddressesLeaveTheOperatorEveryCall(boolean tls) throws Exception {
        // A deadline longer than the test: only the room kept for operators is at work here.
        AdminOptions options = AdminOptions.DEFAULTS.withStrangers(
                new AdminConnections.Rules(16, Duration.ofSeconds(60)));
        server = servers.start(ServerConfig.demo(state).withAdminOptions(
                tls ? options.withTls(AdminTls.Settings.SELF_SIGNED) : options));
        URI admin = server.adminUri();
        for (int i = 0; i < 300; i++) {
            strangers.add(idleFrom("127.0.0." + (2 + i / 10), admin));
        }

        List<Long> millis = new ArrayList<>();
        for (int call = 0; call < 17; call++) {
            long start = System.nanoTime();
            String answer = operatorGet(admin, "/api/v1/snapshot");
            millis.add((System.nanoTime() - start) / 1_000_000);
            assertThat(answer).as("call %d", call).startsWith("HTTP/1.1 200");
            // The strangers keep coming between the calls.
            for (int i = 0; i < 10; i++) {
                strangers.add(idleFrom("127.0.0." + (40 + call), admin));
            }
        }

        assertThat(millis).as("every operator call answered promptly").allMatch(ms -> ms < PROMPT_MILLIS);
    }

    @Test
    void aSocketThatSendsNothingOrTricklesItsHeadIsClosedAtTheDeadline() throws Exception {
        server = servers.start(ServerConfig.demo(state).withAdminOptions(AdminOptions.DEFAULTS.withStrangers(
                new AdminConnections.Rules(16, Duration.ofMillis(500)))));
        URI admin = server.adminUri();
        Socket operator = connectFrom("127.0.0.1", admin);
        assertThat(request(operator, "/api/v1/snapshot", server.adminToken(), false)).startsWith("HTTP/1.1 200");
        Socket idle = idleFrom("127.0.0.2", admin);
        Socket trickle = idleFrom("127.0.0.3", admin);
        Socket refused = idleFrom("127.0.0.4", admin);
        assertThat(request(refused, "/api/v1/snapshot", "not-a-token", false)).startsWith("HTTP/1.1 401");

        long start = System.nanoTime();
        byte[] head = ("GET /api/v1/snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + server.adminToken() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        boolean trickleCut = false;
        // One byte each 100 ms: the head would be complete after some 10 s; the deadline is 500 ms.
        for (int i = 0; i < head.length && !trickleCut; i++) {
            try {
                trickle.getOutputStream().write(head[i]);
                trickle.getOutputStream().flush();
                trickleCut = closedWithin(trickle, 100);
            } catch (IOException reset) {
                trickleCut = true;
            }
        }
        long trickleMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(trickleCut).as("the trickling head is cut").isTrue();
        assertThat(trickleMillis).isLessThan(PROMPT_MILLIS);
        assertThat(closedWithin(idle, PROMPT_MILLIS)).as("the idle socket is closed").isTrue();
        assertThat(closedWithin(refused, PROMPT_MILLIS)).as("a 401 followed by silence is closed").isTrue();
        assertThat(request(operator, "/api/v1/snapshot", server.adminToken(), false))
                .as("the operator's connection, past the deadline, is kept").startsWith("HTTP/1.1 200");
    }

    @Test
    void strangersBeyondTheirAddresssShareAreHeldAndAreTheFirstClosedWhenTheListenerIsFull() throws Exception {
        server = servers.start(ServerConfig.demo(state).withLimits(new ConnectionLimits(10_000, 24, 32, 8 * 1024))
                .withAdminOptions(AdminOptions.DEFAULTS.withStrangers(
                        new AdminConnections.Rules(4, Duration.ofSeconds(60)))));
        URI admin = server.adminUri();
        List<Socket> others = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            others.add(idleFrom("127.0.0.3", admin));
        }
        List<Socket> busy = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            busy.add(idleFrom("127.0.0.2", admin));
        }
        // 24 connections: the listener is full, and nothing was closed (a fleet's connections are never refused on
        // arrival for their address's sake: their tokens may be on the way).
        for (Socket socket : busy) {
            assertThat(closedWithin(socket, 20)).as("a stranger beyond its address's share, held").isFalse();
        }

        // Four newcomers from a third address: each closes the oldest of 127.0.0.2's strangers beyond its share.
        for (int i = 0; i < 4; i++) {
            Socket newcomer = idleFrom("127.0.0.4", admin);
            assertThat(request(newcomer, "/api/v1/snapshot", server.adminToken(), false)).startsWith("HTTP/1.1 200");
        }

        for (Socket socket : others) {
            assertThat(closedWithin(socket, 20)).as("within its address's share, kept").isFalse();
        }
        List<Socket> closed = new ArrayList<>();
        for (Socket socket : busy) {
            if (closedWithin(socket, 20)) {
                closed.add(socket);
            }
        }
        // (Which four is the server's order of accepting them, under load not always the order they connected in.)
        assertThat(closed).as("four of the address beyond its share, one per newcomer").hasSize(4);
    }

    /** A connection from {@code from} that sends nothing; kept for closing after the test. */
    private Socket idleFrom(String from, URI admin) throws IOException {
        Socket socket = connectFrom(from, admin);
        strangers.add(socket);
        return socket;
    }

    /** A connection to the admin listener from the loopback address {@code from}. */
    static Socket connectFrom(String from, URI admin) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(from, 0));
        socket.connect(new InetSocketAddress(admin.getHost(), admin.getPort()), 10_000);
        return socket;
    }

    /** One call from 127.0.0.1 on a new connection (TLS when the listener has it); the whole answer. */
    private String operatorGet(URI admin, String path) throws Exception {
        Socket plain = connectFrom("127.0.0.1", admin);
        try (Socket socket = "https".equals(admin.getScheme())
                ? trusting().getSocketFactory().createSocket(plain, admin.getHost(), admin.getPort(), true) : plain) {
            return request(socket, path, server.adminToken(), true);
        }
    }

    /** Sends a GET and reads its answer: all of it when {@code close}, else the status line and headers. */
    private static String request(Socket socket, String path, String token, boolean close) throws IOException {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n"
                + (close ? "Connection: close\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        if (close) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder head = new StringBuilder();
        int length = 0;
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            head.append(line).append('\n');
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
        return head.toString();
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString().trim();
    }

    /** True if the server closed {@code socket} (end of stream or reset) within {@code millis}. */
    private static boolean closedWithin(Socket socket, long millis) throws IOException {
        socket.setSoTimeout((int) millis);
        try {
            while (socket.getInputStream().read() >= 0) {
                // An answer (a 401, say) before the close.
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private SSLContext trusting() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("admin", server.adminCertificate().certificate());
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
