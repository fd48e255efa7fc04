package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What runs beside a server closes with it, in the order a graceful stop needs: what sends it requests before the
 * listeners stop, what it forwards to after (docs/architecture.md, "Composition").
 */
class ServerCompanionsTest {
    @TempDir
    Path dir;

    @Test
    void clientsCloseBeforeTheListenersStopAndUpstreamsAfterEvenPastAFailingOne() throws Exception {
        // Nothing listens on the discard port: this test forwards no request.
        SluiceServer server = SluiceServer.start(ServerConfig.demo(dir.resolve("state"))
                .withUpstream(URI.create("http://127.0.0.1:9/")));
        URI front = server.frontUri();
        List<String> closed = new CopyOnWriteArrayList<>();
        server.closeLast(() -> closed.add("site, front " + listening(front)));
        server.closeFirst(() -> closed.add("traffic, front " + listening(front)));
        server.closeFirst(() -> {
            throw new IOException("a companion that fails to close");
        });
        server.closeFirst(() -> closed.add("crawlers, front " + listening(front)));

        server.close();

        assertThat(closed).containsExactly("crawlers, front open", "traffic, front open", "site, front closed");
        server.close(); // again: nothing is closed twice
        assertThat(closed).hasSize(3);
    }

    @Test
    void aFrontWhoseGraceRunsOutStillLeavesTheAdminListenerStopped() throws Exception {
        try (ServerSocket silentSite = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            SluiceServer server = startBefore(silentSite);
            URI front = server.frontUri();
            URI admin = server.adminUri();
            // a request the site never answers: in flight through the whole graceful stop
            CompletableFuture<HttpResponse<String>> waiting = sendThrough(server);
            Socket accepted = acceptRequest(silentSite);
            assertThatThrownBy(server::close).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Sluice did not stop cleanly: the front end still had requests or connections open "
                            + "after 10 s of grace; they were cut");
            accepted.close();
            assertThat(listening(front)).as("the front end after its grace ran out").isEqualTo("closed");
            assertThat(listening(admin)).as("the admin listener after the front's failed stop").isEqualTo("closed");
            assertThat(waiting).failsWithin(Duration.ofSeconds(30));
        }
    }

    @Test
    void aRequestInFlightWhenTheStopBeginsIsAnswered() throws Exception {
        try (ServerSocket slowSite = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            SluiceServer server = startBefore(slowSite);
            CompletableFuture<HttpResponse<String>> waiting = sendThrough(server);
            Socket accepted = acceptRequest(slowSite);
            // a slow site: it answers 3 s later, well within the stop's 10 s of grace
            CompletableFuture<Void> answer = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(3_000);
                    accepted.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow")
                            .getBytes(StandardCharsets.US_ASCII));
                    accepted.getOutputStream().flush();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            server.close();
            answer.get();
            HttpResponse<String> response = waiting.get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("slow");
            accepted.close();
        }
    }

    @Test
    void withoutAnUpstreamTheServerRefusesToStartAndTouchesNothing() {
        Path state = dir.resolve("state");

        assertThatThrownBy(() -> SluiceServer.start(ServerConfig.demo(state)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no upstream").hasMessageContaining("io.sluice.server.demo.Demo");
        assertThat(Files.exists(state)).as("no state directory made").isFalse();
    }

    private SluiceServer startBefore(ServerSocket site) throws Exception {
        return SluiceServer.start(ServerConfig.demo(dir.resolve("state"))
                .withUpstream(URI.create("http://127.0.0.1:" + site.getLocalPort() + "/")));
    }

    private static CompletableFuture<HttpResponse<String>> sendThrough(SluiceServer server) {
        return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(server.frontUri().resolve("/slow")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The site's end of the first connection to bring a request's head. The front opens connections ahead of need
     * and may send on any: each is read on a thread of its own.
     */
    private static Socket acceptRequest(ServerSocket site) throws Exception {
        CompletableFuture<Socket> first = new CompletableFuture<>();
        Thread acceptor = new Thread(() -> {
            while (!first.isDone()) {
                try {
                    Socket socket = site.accept();
                    new Thread(() -> {
                        try {
                            if (readHead(socket)) {
                                first.complete(socket);
                            }
                        } catch (IOException e) {
                            // another connection may bring it
                        }
                    }).start();
                } catch (IOException e) {
                    first.completeExceptionally(e);
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        return first.get(30, TimeUnit.SECONDS);
    }

    /** Reads a request's head from {@code socket}; false if it closed first. */
    private static boolean readHead(Socket socket) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        while (matched < end.length) {
            int b = socket.getInputStream().read();
            if (b < 0) {
                return false;
            }
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return true;
    }

    private static String listening(URI front) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(front.getHost(), front.getPort()), 5_000);
            return "open";
        } catch (IOException e) {
            return "closed";
        }
    }
}
