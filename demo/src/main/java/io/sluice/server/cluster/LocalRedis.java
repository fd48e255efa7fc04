package io.sluice.server.cluster;

import java.io.File;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * A throwaway {@code redis-server} for the cluster demo and the benchmarks: the distribution's binary, on a free
 * loopback port, nothing saved to disk, stopped with {@link #close()} (and with the JVM); or one node of a
 * {@link LocalRedisCluster}. Not for production: a production cluster runs its own Redis or Valkey.
 */
public final class LocalRedis implements AutoCloseable {
    /** What to tell someone without the binary. */
    public static final String INSTALL_HINT = "redis-server is not installed; on Debian or Ubuntu: "
            + "sudo apt-get install redis-server (Valkey's valkey-server works too: put it on the PATH as "
            + "redis-server)";
    private static final Duration START_DEADLINE = Duration.ofSeconds(20);

    private final Process process;
    private final int port;
    private final Path dir;

    private LocalRedis(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /**
     * Starts one and waits until it answers {@code PING}.
     *
     * @throws IllegalStateException with {@link #INSTALL_HINT} when the binary is missing, or the server's own
     *                               words when it does not start
     */
    public static LocalRedis start() {
        return start(List.of());
    }

    /** Starts a node for a Redis Cluster ({@code --cluster-enabled}), its cluster bus port (+10000) free too. */
    static LocalRedis startClusterNode() {
        return start(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
    }

    private static LocalRedis start(List<String> options) {
        String binary = binary("redis-server").orElseThrow(() -> new IllegalStateException(INSTALL_HINT));
        boolean clusterNode = options.contains("--cluster-enabled");
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) { // a free port can be taken before redis binds it
            int port = clusterNode ? freePortWithClusterBus() : freePort();
            List<String> command = new ArrayList<>(List.of(binary, "--port", String.valueOf(port), "--bind",
                    "127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--protected-mode", "yes", "--loglevel", "warning"));
            command.addAll(options);
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.redirectErrorStream(true);
            builder.redirectOutput(dir.resolve("redis.log").toFile());
            try {
                LocalRedis redis = new LocalRedis(builder.start(), port, dir);
                redis.awaitPong();
                Runtime.getRuntime().addShutdownHook(new Thread(redis.process::destroyForcibly, "sluice-redis-stop"));
                return redis;
            } catch (IOException e) {
                throw new IllegalStateException(INSTALL_HINT + " (" + e.getMessage() + ")", e);
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw last;
    }

    /** Whether this machine has {@code redis-server} (the distribution's package, or on the PATH). */
    public static boolean installed() {
        return binary("redis-server").isPresent();
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:PORT}, as {@code --redis} takes it. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    public RedisEndpoint endpoint() {
        return RedisEndpoint.parse(url(), null);
    }

    private void awaitPong() {
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at start: " + log());
            }
            if (answersPing()) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("redis-server did not answer PING within " + START_DEADLINE + ": " + log());
    }

    private boolean answersPing() {
        return "+PONG\r\n".equals(replyStart(port, "PING", 7));
    }

    /**
     * The first {@code bytes} bytes of the reply to an inline {@code command} of the redis-server on loopback
     * {@code port} (fewer if it says less), or "" when it does not answer: enough to know one has started, with no
     * client library.
     */
    static String replyStart(int port, String command, int bytes) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readNBytes(bytes), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("redis.log")).strip();
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** The distribution's {@code name} ({@code redis-server}, {@code redis-cli}), else the first on the PATH. */
    static Optional<String> binary(String name) {
        for (String dir : List.of("/usr/bin", "/usr/local/bin")) {
            if (Files.isExecutable(Path.of(dir, name))) {
                return Optional.of(Path.of(dir, name).toString());
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator)) {
                if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, name))) {
                    return Optional.of(Path.of(entry, name).toString());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A free loopback port for a process started after this returns (a redis-server; a test's nginx or Prometheus):
     * chosen at random in 20000-32767, below Linux's ephemeral range (32768 and up), where every outgoing connection
     * on the machine takes its local port too. So the port stays free until the process binds it, but for a rare
     * collision with another such choice, which the launchers retry: a port found by binding port 0 was taken in
     * between when two loaded CI runs shared a machine.
     */
    public static int freePortForAProcess() {
        return freePortWhere(port -> true, 200, "no free port in 20000-32767 after 200 tries");
    }

    /**
     * A free port as {@link #freePortForAProcess()} whose cluster bus port (+10000) is free too, for a Redis Cluster
     * node.
     */
    public static int freePortWithClusterBus() {
        return freePortWhere(port -> bindable(port + 10_000), 100,
                "no free port with a free cluster bus port (+10000) after 100 tries");
    }

    private static int freePortWhere(IntPredicate alsoFree, int attempts, String failure) {
        Random random = new Random();
        for (int attempt = 0; attempt < attempts; attempt++) {
            int port = 20_000 + random.nextInt(12_768);
            if (bindable(port) && alsoFree.test(port)) {
                return port;
            }
        }
        throw new IllegalStateException(failure);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.isBound();
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }
}
