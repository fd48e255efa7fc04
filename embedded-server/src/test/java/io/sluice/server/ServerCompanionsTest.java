package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.front.wire.RawMessage;
import io.sluice.server.front.wire.RawUpstream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
        CompletableFuture<Void> arrived = new CompletableFuture<>();
        // a site that never answers: the request stays in flight through the whole graceful stop
        try (RawUpstream silentSite = new RawUpstream((connection, index) -> {
            if (isPage(connection)) {
                arrived.complete(null);
                connection.readRequest(); // until the front closes the connection
            }
        })) {
            SluiceServer server = startBefore(silentSite);
            URI front = server.frontUri();
            URI admin = server.adminUri();
            CompletableFuture<HttpResponse<String>> waiting = sendThrough(server);
            arrived.get(30, TimeUnit.SECONDS);

            assertThatThrownBy(server::close).isInstanceOf(IllegalStateException.class)
                    .hasMessage("Sluice did not stop cleanly: the front end still had requests or connections open "
                            + "after 10 s of grace; they were cut");
            assertThat(listening(front)).as("the front end after its grace ran out").isEqualTo("closed");
            assertThat(listening(admin)).as("the admin listener after the front's failed stop").isEqualTo("closed");
            assertThat(waiting).failsWithin(Duration.ofSeconds(30));
        }
    }

    @Test
    void aRequestInFlightWhenTheStopBeginsIsAnswered() throws Exception {
        CompletableFuture<Void> arrived = new CompletableFuture<>();
        // a slow site: it answers 3 s after the request comes, well within the stop's 10 s of grace
        try (RawUpstream slowSite = new RawUpstream((connection, index) -> {
            if (isPage(connection)) {
                arrived.complete(null);
                try {
                    Thread.sleep(3_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                connection.write(RawUpstream.ok("slow"));
                connection.readRequest();
            }
        })) {
            SluiceServer server = startBefore(slowSite);
            CompletableFuture<HttpResponse<String>> waiting = sendThrough(server);
            arrived.get(30, TimeUnit.SECONDS);

            server.close();

            HttpResponse<String> response = waiting.get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("slow");
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

    /**
     * Whether the connection's request is the page the test sent, not the front end's own read of the site's
     * robots.txt at start (answered 404 here, so the site's script waits for the page).
     */
    private static boolean isPage(RawUpstream.Connection connection) throws IOException {
        RawMessage request = connection.readRequest();
        if (request != null && request.target().equals("/robots.txt")) {
            connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return false;
        }
        return request != null;
    }

    private SluiceServer startBefore(RawUpstream site) throws Exception {
        return SluiceServer.start(ServerConfig.demo(dir.resolve("state")).withUpstream(site.uri()));
    }

    private static CompletableFuture<HttpResponse<String>> sendThrough(SluiceServer server) {
        return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(server.frontUri().resolve("/slow")).build(),
                HttpResponse.BodyHandlers.ofString());
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
