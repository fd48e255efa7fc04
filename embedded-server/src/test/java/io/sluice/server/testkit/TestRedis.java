package io.sluice.server.testkit;

import io.sluice.server.cluster.RedisEndpoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} (the distribution's package) for the cluster tests: on a free loopback port,
 * its files in a temporary directory, nothing saved to disk. It can be killed, hung ({@code SIGSTOP}) and
 * resumed, restarted empty on the same port (scripts and keys gone), and told to drop its clients'
 * connections. Close it in {@code @AfterAll}/{@code @AfterEach}; a JVM exit kills it too.
 */
public final class TestRedis implements RedisUnderTest {
    private static final Duration START_DEADLINE = Duration.ofSeconds(20);

    private final Path dir;
    private final int port;
    private final List<String> options;
    private volatile Process process;
    private boolean hung;

    private TestRedis(Path dir, int port, List<String> options) {
        this.dir = dir;
        this.port = port;
        this.options = options;
    }

    /** Starts one; fails the test with the server's own words when the binary is missing or will not start. */
    public static TestRedis start() {
        return start(false);
    }

    /**
     * One started with more options: {@code startWith("--rename-command", "FUNCTION", "")} is a Redis that loads no
     * function, as before 7.0 or for a user not allowed {@code FUNCTION}.
     */
    public static TestRedis startWith(String... options) {
        return start(List.of(options));
    }

    /**
     * A node of a Redis Cluster ({@code --cluster-enabled yes}, its own config file in its own directory), not yet
     * in a cluster: {@link TestRedisCluster} joins them. Its cluster bus port (its port + 10000) is free too.
     */
    public static TestRedis startClusterNode() {
        return start(true);
    }

    private static TestRedis start(boolean clusterNode) {
        // A master silent for 1 s is failed; its replica takes over however old its data (validity factor 0): a
        // replica still in its first sync when a test kills the master would otherwise never be promoted.
        return start(clusterNode ? List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0") : List.of());
    }

    private static TestRedis start(List<String> options) {
        boolean clusterNode = options.contains("--cluster-enabled");
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IllegalStateException last = null;
        // A free port found by binding port 0 can be taken by someone else before redis binds it: try again.
        for (int attempt = 0; attempt < 5; attempt++) {
            int port = clusterNode ? FreePorts.withClusterBus() : FreePorts.forAProcess();
            TestRedis redis = new TestRedis(dir, port, options);
            try {
                redis.launch();
                // A test class that never reaches its close (a JVM stopped by a failure or a timeout) leaves no
                // redis-server behind: full runs left a dozen running for hours.
                Runtime.getRuntime().addShutdownHook(new Thread(redis::killAtExit, "test-redis-stop"));
                return redis;
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw last;
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

    @Override
    public RedisEndpoint endpoint() {
        return RedisEndpoint.parse(url(), null);
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(binary(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--protected-mode", "yes", "--loglevel", "warning"));
        command.addAll(options);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectErrorStream(true);
        builder.redirectOutput(dir.resolve("redis-" + port + ".log").toFile());
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-server (install the Debian package redis-server): "
                    + e.getMessage(), e);
        }
        boolean answered = Await.within(START_DEADLINE, () -> !process.isAlive() || answersPing());
        if (!process.isAlive()) {
            throw new IllegalStateException("redis-server exited at start: " + log());
        }
        if (answered) {
            return;
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
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
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

    /** Drops every client connection except the one asking (CLIENT KILL), as a proxy or a failover would. */
    @Override
    public long dropClients() {
        try {
            return Long.parseLong(command("CLIENT", "KILL", "TYPE", "normal"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** FLUSHALL and SCRIPT FLUSH: a clean slate between tests sharing one server. */
    @Override
    public void reset() {
        try {
            command("FLUSHALL");
            command("SCRIPT", "FLUSH");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A number from {@code INFO section}: the digits right after {@code prefix} ({@code "number_of_libraries:"},
     * {@code "cmdstat_fcall:calls="}), or 0 where INFO has no such line (a command never run).
     */
    public long info(String section, String prefix) throws IOException {
        String number = command("EVAL", "return string.match(redis.call('INFO', ARGV[1]), "
                + "string.gsub(ARGV[2], '%p', '%%%0') .. '(%d+)')", "0", section, prefix);
        return number == null ? 0 : Long.parseLong(number);
    }

    /** Sends one command over a new connection and returns the reply as text (simple and integer replies). */
    @Override
    public String command(String... words) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
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
            if (line == null) {
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
        if (process == null) {
            throw new IllegalStateException("redis-server is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).start();
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

    @Override
    public void close() {
        if (hung) {
            resume();
        }
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
            for (Path file : all) {
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

    private static String binary() {
        for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "redis-server";
    }

    private static void waitFor(Process process) {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
