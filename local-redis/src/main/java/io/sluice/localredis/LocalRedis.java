package io.sluice.localredis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway {@code redis-server} (the distribution's binary) on a free loopback port, its files in a temporary
 * directory, nothing saved to disk: for the tests, the demo cluster and the benchmarks. It can be killed, hung
 * ({@code SIGSTOP}) and resumed, and restarted empty on the same port. {@link #close()} stops it and removes its
 * directory; a JVM exit kills it too. Not for production: a production cluster runs its own Redis or Valkey.
 */
public final class LocalRedis implements AutoCloseable {
    /** What to tell someone without the binary. */
    public static final String INSTALL_HINT = "redis-server is not installed; on Debian or Ubuntu: "
            + "sudo apt-get install redis-server (Valkey's valkey-server works too: put it on the PATH as "
            + "redis-server)";
    private static final Duration START_DEADLINE = Duration.ofSeconds(20);

    private final String binary;
    private final Path dir;
    private final int port;
    private final List<String> options;
    private volatile Process process;
    private boolean hung;

    private LocalRedis(String binary, Path dir, int port, List<String> options) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.options = options;
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

    /**
     * One started with more options: {@code startWith("--rename-command", "FUNCTION", "")} is a Redis that loads no
     * function, as before 7.0 or for a user not allowed {@code FUNCTION}.
     */
    public static LocalRedis startWith(String... options) {
        return start(List.of(options));
    }

    /**
     * A node of a Redis Cluster ({@code --cluster-enabled yes}, its config file in its own directory), not yet in a
     * cluster ({@link LocalRedisCluster#join} joins them), with {@code options} more. Its cluster bus port (its port +
     * 10000) is free too.
     */
    public static LocalRedis startClusterNode(String... options) {
        List<String> all = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
        all.addAll(List.of(options));
        return start(all);
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
            int port = clusterNode ? FreePorts.withClusterBus() : FreePorts.forAProcess();
            LocalRedis redis = new LocalRedis(binary, dir, port, options);
            try {
                redis.launch();
                // A JVM that never reaches close (stopped by a failure or a timeout) leaves no redis-server behind:
                // full test runs once left a dozen running for hours.
                Runtime.getRuntime().addShutdownHook(new Thread(redis::killAtExit, "sluice-redis-stop"));
                return redis;
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

    /** The server's files (its log, a cluster node's config). */
    public Path dir() {
        return dir;
    }

    /** {@code redis://127.0.0.1:PORT}, the form {@code --redis} takes. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(binary, "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--protected-mode", "yes", "--loglevel", "warning"));
        command.addAll(options);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(dir.resolve("redis-" + port + ".log").toFile());
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException(INSTALL_HINT + " (" + e.getMessage() + ")", e);
        }
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at start: " + log());
            }
            if (answersPing()) {
                return;
            }
            try {
                Thread.sleep(20); // polling for its first answer, within the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("redis-server did not answer PING within " + START_DEADLINE + ": " + log());
    }

    private boolean answersPing() {
        try {
            return "PONG".equals(command("PING"));
        } catch (IOException e) {
            return false; // not listening yet
        }
    }

    private void killAtExit() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
        }
    }

    /** SIGKILL: the server and every key in it are gone; connections see a reset. */
    public void kill() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
            waitFor(running);
            process = null;
            hung = false;
        }
    }

    /** A fresh, empty server on the same port: no keys, no scripts cached (as after a crash with no persistence). */
    public void restartEmpty() {
        kill();
        launch();
    }

    /** SIGSTOP: connections stay open but nothing is answered, like a server swapping or stuck in a slow command. */
    public void hang() {
        signal("STOP");
        hung = true;
    }

    /** SIGCONT after {@link #hang()}. */
    public void resume() {
        signal("CONT");
        hung = false;
    }

    /**
     * Sends one command over a new connection and returns the reply as text: a simple or integer reply, a bulk
     * string's first line (null for a nil one; {@code cluster_state:ok} for CLUSTER INFO), or an array's header.
     *
     * @throws IOException when it does not answer, or with the server's words for an error reply
     */
    public String command(String... words) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            socket.setSoTimeout(2000);
            StringBuilder resp = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                resp.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                        .append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(resp.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || line.isEmpty()) {
                throw new IOException("connection closed without a reply");
            }
            return switch (line.charAt(0)) {
                case '+', ':' -> line.substring(1);
                case '-' -> throw new IOException("redis error: " + line.substring(1));
                case '$' -> line.startsWith("$-1") ? null : in.readLine();
                default -> line;
            };
        }
    }

    private void signal(String name) {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("redis-server is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(running.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops it (resumed first if hung) and removes its directory. */
    @Override
    public void close() {
        if (hung) {
            resume();
        }
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("redis-" + port + ".log")).strip();
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

    private static void waitFor(Process process) {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
