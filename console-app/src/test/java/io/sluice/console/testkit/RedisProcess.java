package io.sluice.console.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A real {@code redis-server} (the distribution's package) for the console's cluster tests, on a free loopback
 * port with nothing saved to disk: the console's own small copy of the server module's test harness (whose
 * class is not visible from here), enough to start and stop one.
 */
public final class RedisProcess implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(20);

    private final Path dir;
    private final int port;
    private final Process process;

    private RedisProcess(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Starts one; fails with the server's own words when the binary is missing or will not start. */
    public static RedisProcess start() throws IOException {
        Path dir = Files.createTempDirectory("sluice-console-redis");
        IllegalStateException last = null;
        // A port found free can be taken before redis binds it: try another.
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = freePort();
            Process process = new ProcessBuilder(binary(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--loglevel", "warning")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
            try {
                awaitPong(process, port);
                // a JVM stopped before the test closed it leaves no redis-server behind
                Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "test-redis-stop"));
                return new RedisProcess(dir, port, process);
            } catch (IllegalStateException e) {
                process.destroyForcibly();
                last = e;
            }
        }
        throw last;
    }

    /** {@code redis://127.0.0.1:PORT}, the form {@code --redis} takes. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    private static void awaitPong(Process process, int port) {
        try {
            WaitForAsyncUtils.waitFor(START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS,
                    () -> !process.isAlive() || ping(port));
        } catch (TimeoutException e) {
            throw new IllegalStateException("redis-server did not answer PING within " + START_DEADLINE);
        }
        if (!process.isAlive()) {
            throw new IllegalStateException("redis-server exited at start (port " + port + ")");
        }
    }

    private static boolean ping(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(5);
            return "+PONG".equals(new String(reply, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }

    private static String binary() {
        for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "redis-server";
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
