package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    void withoutAnUpstreamTheServerRefusesToStartAndTouchesNothing() {
        Path state = dir.resolve("state");

        assertThatThrownBy(() -> SluiceServer.start(ServerConfig.demo(state)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no upstream").hasMessageContaining("io.sluice.server.demo.Demo");
        assertThat(Files.exists(state)).as("no state directory made").isFalse();
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
