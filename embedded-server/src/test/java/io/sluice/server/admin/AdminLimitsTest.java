package io.sluice.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ConnectionLimits;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What a hostile or careless client meets, on real sockets over loopback. */
class AdminLimitsTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private SluiceServer server;

    @Test
    void aChunkedBodyPastTheLimitIs413AndChangesNothing() throws Exception {
        server = servers.start(AdminTlsTest.tls(state));
        long version = server.engine().policy().version();

        String admin = chunkedPast(ApiMessages.MAX_BODY_BYTES, "/api/v1/bans", server.adminToken());
        String worker = chunkedPast(ApiMessages.MAX_BODY_BYTES, "/api/v1/permits", server.state().workerToken());

        assertThat(admin).startsWith("HTTP/1.1 413");
        assertThat(worker).as("the workers' path too").startsWith("HTTP/1.1 413");
        assertThat(server.engine().policy().version()).isEqualTo(version);
    }

    @Test
    void aHostNameTheListenerIsNotKnownByIsRefused() throws Exception {
        server = servers.start(ServerConfig.demo(state));

        String rebound = rawGet(server.adminUri(), "attacker.example", server.adminToken());
        String direct = rawGet(server.adminUri(), "127.0.0.1:" + server.adminUri().getPort(), server.adminToken());
        String local = rawGet(server.adminUri(), "localhost", server.adminToken());

        assertThat(rebound).startsWith("HTTP/1.1 421").contains("attacker.example", "--admin-hostname");
        assertThat(direct).startsWith("HTTP/1.1 200");
        assertThat(local).startsWith("HTTP/1.1 200");
    }

    @Test
    void aConnectionFloodOnThePublicPortDoesNotLockTheOperatorsOut() throws Exception {
        server = servers.start(AdminTlsTest.tls(state).withLimits(
                ConnectionLimits.DEFAULTS.withFrontMaxConnections(20)));
        URI front = server.frontUri();
        List<Socket> flood = new ArrayList<>();
        boolean saturated = false;
        try {
            while (!saturated && flood.size() < 2_000) {
                Socket socket = new Socket();
                flood.add(socket);
                try {
                    socket.connect(new InetSocketAddress(front.getHost(), front.getPort()), 1_000);
                    // Half a request line each, never finished: every accepted connection is held.
                    socket.getOutputStream().write("GET /page/1 HT".getBytes(StandardCharsets.US_ASCII));
                } catch (SocketTimeoutException full) {
                    saturated = true;
                }
            }
            assertThat(saturated).as("the public port took no more connections").isTrue();

            HttpResponse<String> snapshot = new Https(server).call("GET", "/api/v1/snapshot", null,
                    server.adminToken());
            HttpResponse<String> paused = new Https(server).call("POST", "/api/v1/pause", "", server.adminToken());

            assertThat(snapshot.statusCode()).isEqualTo(200);
            assertThat(paused.statusCode()).isEqualTo(200);
            assertThat(server.engine().policy().pause().all()).isTrue();
        } finally {
            for (Socket socket : flood) {
                socket.close();
            }
        }
    }

    /** Sends a chunked body one chunk at a time past {@code limit} and returns the first line of the answer. */
    private String chunkedPast(int limit, String path, String token) throws Exception {
        URI admin = server.adminUri();
        SSLContext context = SSLContext.getInstance("TLS");
        TrustManagerFactory factory = TrustManagerFactory.getInstance(
                TrustManagerFactory.getDefaultAlgorithm());
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("admin", server.adminCertificate().certificate());
        factory.init(trust);
        context.init(null, factory.getTrustManagers(), null);
        try (Socket socket = context.getSocketFactory().createSocket(admin.getHost(), admin.getPort())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                    + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) ' ');
            InputStream in = socket.getInputStream();
            long sent = 0;
            try {
                // Keep sending well past the limit: the answer must come before the body ends.
                while (sent < limit * 4L && in.available() == 0) {
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(chunk);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    sent += chunk.length;
                }
            } catch (IOException closedUnderUs) {
                // The server answered and closed: what it said is still to be read.
            }
            return firstLine(in);
        }
    }

    private static String rawGet(URI base, String host, String token) throws Exception {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(("GET /api/v1/snapshot HTTP/1.1\r\nHost: " + host
                    + "\r\nAuthorization: Bearer " + token + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String firstLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString().trim();
    }
}
