package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.localredis.FreePorts;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.RealParts;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server started as the service starts it (docs/manual/installing-the-server.md): the installed
 * launcher, from the package unpacked into a throwaway root, with the shipped /etc/default/sluice and the
 * shipped configuration file (its paths moved into that root, free ports, a real upstream): it answers on its
 * front and admin ports, writes its state and access log where the file says, and stops cleanly on SIGTERM.
 */
@RealParts
class ServerPackageLaunchTest {
    private static final Pattern JAVA_OPTS = Pattern.compile("(?m)^JAVA_OPTS=\"([^\"]*)\"$");
    private static final String FIREFOX = AlertsFireTest.FIREFOX;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Server upstream;
    private Process server;
    private Path log;

    @AfterEach
    void stop() throws Exception {
        if (server != null && server.isAlive()) {
            server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (upstream != null) {
            upstream.stop();
        }
    }

    @Test
    void theInstalledLauncherRunsTheServerWithTheShippedFilesAndStopsCleanlyOnSigterm() throws Exception {
        Path root = ServerPackage.unpack(Files.createDirectories(dir.resolve("root")));
        Map<String, String> shipped = installedConfig(root, startUpstream());
        Map<String, String> config = null;
        // A free port found by binding port 0 can be taken by another process before the server binds it (two CI
        // runs on one machine): then the server says so and exits, and the launch is tried on other ports.
        for (int attempt = 1; config == null; attempt++) {
            config = launch(root, shipped, attempt == 5);
        }
        int front = Integer.parseInt(config.get("listen").substring("127.0.0.1:".length()));
        int admin = Integer.parseInt(config.get("admin").substring("127.0.0.1:".length()));

        URI frontUri = URI.create("http://127.0.0.1:" + front + "/");
        HttpResponse<String> page = get(frontUri.resolve("/page"), null);
        assertThat(page.body()).isEqualTo("upstream saw /page");

        URI adminUri = URI.create("http://127.0.0.1:" + admin + "/");
        assertThat(status(get(adminUri.resolve("/metrics"), null))).as("the admin API without a token").isEqualTo(401);
        Path state = Path.of(config.get("state"));
        String token = Files.readString(state.resolve("admin-token")).trim();
        HttpResponse<String> metrics = get(adminUri.resolve("/metrics"), token);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_requests_total");
        if (config.containsKey("access-log")) {
            Path accessLog = Path.of(config.get("access-log"));
            waitFor("the request in " + accessLog, () -> read(accessLog).contains("/page"));
        }

        // exec: the JVM is the launcher's own process (systemd's MainPID, which SIGHUP and SIGTERM reach),
        // run with the JVM options of the shipped /etc/default/sluice.
        List<String> arguments = Arrays.asList(server.info().arguments().orElseThrow());
        assertThat(server.info().command().orElseThrow()).endsWith("/java");
        assertThat(arguments).containsSubsequence("-jar", root.resolve("usr/share/sluice/sluice-server.jar")
                .toString());
        assertThat(arguments).containsAll(shippedJavaOptions(root));

        server.destroy();

        assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s of SIGTERM").isTrue();
        // The JVM exits with 143 (128 + SIGTERM) after its shutdown hook has stopped the server; the unit
        // counts it a clean stop (SuccessExitStatus=143).
        assertThat(server.exitValue()).as(read(log)).isIn(0, 143);
        assertThat(read(log)).doesNotContain("Exception");
    }

    /**
     * Starts the installed launcher as the unit does, with everything from the shipped configuration file on free
     * ports, and waits for its front end to answer. Returns the configuration it runs with, or null when a port was
     * taken meanwhile (and {@code last} is false).
     */
    private Map<String, String> launch(Path root, Map<String, String> shipped, boolean last) throws Exception {
        Map<String, String> config = new TreeMap<>(shipped);
        config.put("listen", "127.0.0.1:" + FreePorts.forAProcess());
        config.put("admin", "127.0.0.1:" + FreePorts.forAProcess());
        Files.writeString(root.resolve("etc/sluice/sluice.conf"), asProperties(config));
        List<String> command = new ArrayList<>(List.of(root.resolve("usr/bin/sluice-server").toString()));
        // as the unit starts it: everything from the configuration file
        command.addAll(List.of("--config", root.resolve("etc/sluice/sluice.conf").toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        log = dir.resolve("server.log");
        builder.redirectOutput(log.toFile());
        builder.environment().remove("JAVA_HOME");
        builder.environment().putAll(Map.of("PATH", Path.of(System.getProperty("java.home"), "bin") + ":"
                        + System.getenv("PATH"), "SLUICE_HOME", root.resolve("usr/share/sluice").toString(),
                "SLUICE_DEFAULTS", root.resolve("etc/default/sluice").toString()));
        server = builder.start();
        URI page = URI.create("http://127.0.0.1:" + config.get("listen").substring("127.0.0.1:".length()) + "/page");
        try {
            waitFor("the front end answering", () -> status(get(page, null)) == 200);
        } catch (AssertionError e) {
            if (last || server.isAlive() || !read(log).contains("the port is in use")) {
                throw e;
            }
            return null;
        }
        return config;
    }

    /**
     * The shipped configuration file's settings, for this machine: its paths moved under {@code root}, the
     * upstream a real one (the listeners' ports are set at each launch).
     */
    private static Map<String, String> installedConfig(Path root, URI upstream) throws IOException {
        Properties shipped = new Properties();
        shipped.load(new StringReader(Files.readString(root.resolve("etc/sluice/sluice.conf"))));
        Map<String, String> config = new TreeMap<>();
        for (String key : shipped.stringPropertyNames()) {
            String value = shipped.getProperty(key).trim();
            config.put(key, value.startsWith("/var/") || value.startsWith("/etc/") ? root + value : value);
        }
        assertThat(config).as("the shipped configuration file").containsKeys("upstream", "state");
        assertThat(config.get("state")).isEqualTo(root + "/var/lib/sluice");
        config.put("upstream", upstream.toString());
        return config;
    }

    private static String asProperties(Map<String, String> config) {
        StringBuilder text = new StringBuilder();
        config.forEach((key, value) -> text.append(key).append(" = ").append(value).append('\n'));
        return text.toString();
    }

    private static List<String> shippedJavaOptions(Path root) throws IOException {
        Matcher options = JAVA_OPTS.matcher(Files.readString(root.resolve("etc/default/sluice")));
        assertThat(options.find()).as("JAVA_OPTS in /etc/default/sluice").isTrue();
        return Arrays.stream(options.group(1).split("\\s+")).filter(option -> !option.isEmpty()).toList();
    }

    private URI startUpstream() throws Exception {
        upstream = new Server();
        ServerConnector connector = new ServerConnector(upstream);
        connector.setHost("127.0.0.1");
        upstream.addConnector(connector);
        upstream.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Content.Sink.write(response, true, "upstream saw " + request.getHttpURI().getPath(), callback);
                return true;
            }
        });
        upstream.start();
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    /** {@code GET uri} as a browser, with the admin token when given; null when nothing answers yet. */
    private HttpResponse<String> get(URI uri, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("User-Agent", FIREFOX);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int status(HttpResponse<String> response) {
        return response == null ? -1 : response.statusCode();
    }

    private static String read(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** Polls {@code condition} for up to 60 s (a JVM starting on a loaded machine); fails with the server's log. */
    private void waitFor(String what, BooleanSupplier condition) {
        if (!Await.within(Duration.ofSeconds(60), () -> condition.getAsBoolean() || !server.isAlive())) {
            throw new AssertionError("no " + what + " within 60 s; server log:\n" + read(log));
        }
        if (!condition.getAsBoolean()) {
            throw new AssertionError("the server exited with " + server.exitValue() + " before " + what
                    + ":\n" + read(log));
        }
    }
}
