package io.sluice.server.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ByteRelayTest {
    private ServerSocket upstream;
    private ByteRelay relay;
    private Thread relaying;

    @AfterEach
    void stop() throws Exception {
        if (relay != null) {
            relay.close();
            relaying.join(5_000);
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    @Test
    void bytesGoToTheUpstreamAndItsAnswerComesBackOnTheSameConnectionEveryTime() throws Exception {
        startUpstream(EchoUpstream.UPPER_CASE);
        startRelay();
        try (Socket visitor = new Socket("127.0.0.1", relay.port())) {
            visitor.setSoTimeout(5_000);
            for (String message : new String[] {"first request\n", "second one\n"}) {
                visitor.getOutputStream().write(message.getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(visitor.getInputStream().readNBytes(message.length()), StandardCharsets.US_ASCII))
                        .isEqualTo(message.toUpperCase());
            }
        }
    }

    @Test
    void aBodyLargerThanTheRelaysBufferArrivesWholeAndInOrder() throws Exception {
        startUpstream(EchoUpstream.SAME);
        startRelay();
        byte[] body = new byte[1024 * 1024];
        new Random(7).nextBytes(body);
        try (Socket visitor = new Socket("127.0.0.1", relay.port())) {
            visitor.setSoTimeout(10_000);
            Thread writer = new Thread(() -> {
                try {
                    visitor.getOutputStream().write(body);
                } catch (IOException ignored) {
                    // The assertion below fails instead.
                }
            });
            writer.start();
            assertThat(visitor.getInputStream().readNBytes(body.length)).isEqualTo(body);
            writer.join(10_000);
        }
    }

    @Test
    void withNoUpstreamTheVisitorsConnectionIsClosed() throws Exception {
        int nobody;
        try (ServerSocket free = new ServerSocket(0)) {
            nobody = free.getLocalPort();
        }
        relay = ByteRelay.open(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", nobody));
        relaying = new Thread(this::relay);
        relaying.start();
        try (Socket visitor = new Socket("127.0.0.1", relay.port())) {
            visitor.setSoTimeout(5_000);
            assertThat(visitor.getInputStream().read()).isEqualTo(-1);
        }
    }

    private void startRelay() throws IOException {
        relay = ByteRelay.open(new InetSocketAddress("127.0.0.1", 0),
                new InetSocketAddress("127.0.0.1", upstream.getLocalPort()));
        relaying = new Thread(this::relay);
        relaying.start();
    }

    private void relay() {
        try {
            relay.run();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void startUpstream(EchoUpstream answer) throws IOException {
        upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread serving = new Thread(() -> {
            try (Socket connection = upstream.accept()) {
                InputStream in = connection.getInputStream();
                OutputStream out = connection.getOutputStream();
                byte[] chunk = new byte[4096];
                int read;
                while ((read = in.read(chunk)) > 0) {
                    out.write(answer.apply(chunk, read), 0, read);
                }
            } catch (IOException ignored) {
                // The test closed the listener.
            }
        });
        serving.setDaemon(true);
        serving.start();
    }

    private enum EchoUpstream {
        SAME, UPPER_CASE;

        byte[] apply(byte[] chunk, int length) {
            if (this == SAME) {
                return chunk;
            }
            return new String(chunk, 0, length, StandardCharsets.US_ASCII).toUpperCase()
                    .getBytes(StandardCharsets.US_ASCII);
        }
    }
}
