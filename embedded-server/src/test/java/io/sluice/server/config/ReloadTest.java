package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.server.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -HUP} on a real {@code sluice-server --config FILE} process: the access log is re-opened after
 * logrotate's rename and takes its new format, a setting that needs a restart is named, a request in flight
 * through it all completes, and a broken file changes nothing. A server started with SIGHUP ignored (under
 * {@code nohup}) says it cannot reload instead of promising to.
 */
class ReloadTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Pattern FRONT = Pattern.compile("front end on (\\S+)");
    /**
     * The server's SIGHUP as a service manager gives it, whatever this test's own: a build run under {@code nohup}
     * hands its processes SIGHUP ignored, and the server would rightly say it cannot reload.
     */
    private static final List<String> HANGUP_DEFAULT = List.of("env", "--default-signal=HUP");

    @TempDir
    Path dir;

    private final List<String> output = new CopyOnWriteArrayList<>();
    private final CountDownLatch slowArrived = new CountDownLatch(1);
    private final CountDownLatch slowMayAnswer = new CountDownLatch(1);
    private final ExecutorService upstreamThreads = Executors.newCachedThreadPool();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private HttpServer upstream;
    private Process server;

    @AfterEach
    void stop() throws Exception {
        slowMayAnswer.countDown();
        if (server != null && server.isAlive()) {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        if (upstream != null) {
            upstream.stop(0);
        }
        upstreamThreads.shutdownNow();
    }

    @Test
    void sighupReopensTheAccessLogAppliesItsFormatNamesWhatNeedsARestartAndDropsNothing() throws Exception {
        startUpstream();
        Path log = dir.resolve("access.log");
        Path conf = dir.resolve("sluice.conf");
        List<String> settings = List.of("listen = 127.0.0.1:0", "admin = 127.0.0.1:0",
                "upstream = http://127.0.0.1:" + upstream.getAddress().getPort(), "state = " + dir.resolve("state"),
                "access-log = " + log);
        Files.write(conf, settings);
        URI front = start(conf, HANGUP_DEFAULT, "SIGHUP reloads " + conf);

        assertThat(get(front.resolve("/fast")).statusCode()).isEqualTo(200);
        await(() -> lineCount(log) == 1, "the first line in the access log");

        CompletableFuture<HttpResponse<String>> slow = http.sendAsync(HttpRequest.newBuilder(front.resolve("/slow"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(slowArrived.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("the slow request upstream").isTrue();

        Path rotated = dir.resolve("access.log.1");
        Files.move(log, rotated);
        List<String> changed = new ArrayList<>(settings);
        changed.add("access-log-format = json");
        changed.add("upstream-timeout = 5");
        changed.add("max-connections-per-address = 32");
        Files.write(conf, changed);
        hangUp();

        awaitOutput("reload: access-log-format changed from ncsa to json");
        awaitOutput("reload: max-connections-per-address changed from 64 to 32");
        awaitOutput("reload: changed, but applied only by a restart: upstream-timeout");
        awaitOutput("reload: done; access log re-opened");
        assertThat(get(front.resolve("/fast?after=reload")).statusCode()).isEqualTo(200);
        await(() -> lineCount(log) == 1, "a line in the re-opened access log");
        assertThat(new ObjectMapper().readTree(Files.readAllLines(log).get(0)).get("target").asText())
                .isEqualTo("/fast?after=reload");

        assertThat(slow.isDone()).as("the slow request is still in flight").isFalse();
        slowMayAnswer.countDown();
        HttpResponse<String> slowAnswer = slow.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(slowAnswer.statusCode()).isEqualTo(200);
        assertThat(slowAnswer.body()).isEqualTo("slow page");
        await(() -> lineCount(log) == 2, "the slow request logged in the new file");
        assertThat(Files.readAllLines(rotated)).hasSize(1).allMatch(line -> line.contains("\"GET /fast HTTP/1.1\""));

        // A broken file: nothing in it is applied, the problem is named, the log re-opened, the server serves on.
        List<String> broken = new ArrayList<>(settings);
        broken.add("access-log-format = ncsa");
        broken.add("bogus = 1");
        Files.write(conf, broken);
        hangUp();
        awaitOutput("reload: the configuration has problems, so nothing in it was applied:");
        awaitOutput(conf + ":7: unknown key 'bogus'");
        awaitOutput("reload: access log re-opened as it was: " + log);
        assertThat(get(front.resolve("/fast?after=bad")).statusCode()).isEqualTo(200);
        await(() -> lineCount(log) == 3, "the next line, still JSON");
        assertThat(Files.readAllLines(log).get(2)).startsWith("{").contains("/fast?after=bad");
        assertThat(server.isAlive()).isTrue();
    }

    @Test
    void aSighupWhileTheServerStartsIsHeldAndDoneOnceItRuns() throws Exception {
        startUpstream();
        // The initial policy is a pipe: the server's start stops there, inside StateDirectory, until it is written.
        Path policy = dir.resolve("policy.json");
        Process mkfifo = new ProcessBuilder("mkfifo", policy.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS) && mkfifo.exitValue() == 0).isTrue();
        Path conf = dir.resolve("sluice.conf");
        Files.write(conf, List.of("listen = 127.0.0.1:0", "admin = 127.0.0.1:0",
                "upstream = http://127.0.0.1:" + upstream.getAddress().getPort(), "state = " + dir.resolve("state"),
                "policy = " + policy));
        launch(conf, HANGUP_DEFAULT);
        CompletableFuture<OutputStream> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return Files.newOutputStream(policy); // returns once the server opened the pipe to read it
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, upstreamThreads);
        await(writer::isDone, "the server reading its policy file");

        hangUp(); // the JVM's own handler would end it here, exit 129
        try (OutputStream out = writer.join()) {
            out.write(PolicyJson.mapper().writeValueAsBytes(Policy.defaults()));
        } catch (IOException e) {
            throw new AssertionError("the server ended while starting, exit " + server.waitFor(), e);
        }

        awaitOutput("a SIGHUP came while the server was starting; done now");
        awaitOutput("reload: done");
        assertThat(get(frontOf(output).resolve("/fast")).statusCode()).isEqualTo(200);
        assertThat(server.isAlive()).isTrue();
    }

    @Test
    void aServerStartedWithHangupIgnoredSaysItCannotReloadAndServesOn() throws Exception {
        startUpstream();
        Path conf = dir.resolve("sluice.conf");
        Files.write(conf, List.of("listen = 127.0.0.1:0", "admin = 127.0.0.1:0",
                "upstream = http://127.0.0.1:" + upstream.getAddress().getPort(), "state = " + dir.resolve("state")));

        // as nohup starts it: the JVM keeps an inherited ignored SIGHUP ignored, whatever handler it is given
        URI front = start(conf, List.of("env", "--ignore-signal=HUP"),
                "SIGHUP is ignored in this process (started under nohup?), so it reloads nothing: restart to apply "
                        + "changes to " + conf);

        assertThat(output).noneMatch(line -> line.contains("SIGHUP reloads"));
        hangUp();
        assertThat(get(front.resolve("/fast")).statusCode()).isEqualTo(200);
        assertThat(server.isAlive()).isTrue();
    }

    private void startUpstream() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.setExecutor(upstreamThreads);
        upstream.createContext("/fast", exchange -> answer(exchange, "fast page"));
        upstream.createContext("/slow", exchange -> {
            slowArrived.countDown();
            try {
                slowMayAnswer.await(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(exchange, "slow page");
        });
        upstream.start();
    }

    private static void answer(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /**
     * Starts {@code sluice-server --config FILE} in a JVM of its own, through {@code launcher} (a command that
     * sets its signals), and awaits {@code reloadLine}; its standard output is kept.
     */
    private URI start(Path conf, List<String> launcher, String reloadLine) throws Exception {
        launch(conf, launcher);
        awaitOutput(reloadLine);
        return frontOf(output);
    }

    /** Starts {@code sluice-server --config FILE} through {@code launcher}, keeping its standard output. */
    private void launch(Path conf, List<String> launcher) throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), "io.sluice.server.Main",
                "--config", conf.toString()));
        server = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("server.err").toFile())).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8))) {
                out.lines().forEach(output::add);
            } catch (IOException e) {
                output.add("(output closed: " + e.getMessage() + ")");
            }
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** The front end's address, as the server printed it. */
    private static URI frontOf(List<String> output) {
        for (String line : output) {
            Matcher front = FRONT.matcher(line);
            if (front.find()) {
                return URI.create(front.group(1));
            }
        }
        throw new AssertionError("the server did not name its front end: " + output);
    }

    private void hangUp() throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(server.pid())).inheritIO().start();
        assertThat(kill.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
    }

    private HttpResponse<String> get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void awaitOutput(String text) throws Exception {
        await(() -> output.stream().anyMatch(line -> line.contains(text)), "'" + text + "' in the server's output");
    }

    private void await(BooleanSupplier condition, String what) throws Exception {
        Await.within(PATIENCE, () -> condition.getAsBoolean() || !server.isAlive());
        if (!condition.getAsBoolean()) {
            throw new AssertionError("no " + what + " (server alive: " + server.isAlive() + "); its output: "
                    + output + "; its log: " + Files.readString(dir.resolve("server.err")));
        }
    }

    private static long lineCount(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
