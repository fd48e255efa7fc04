package io.sluice.server.hostile;

import io.sluice.server.OwnThread;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sluice-server} in a process of its own, started as an operator would (its {@code main}, its flags), so that a
 * test can kill it with {@code kill -9} and start it again on the same state directory.
 */
final class ServerProcess implements AutoCloseable {
    private static final Pattern FRONT = Pattern.compile("front end on (\\S+)");
    private static final Pattern ADMIN = Pattern.compile("admin API on (\\S+)");
    private static final Duration START_PATIENCE = Duration.ofSeconds(90);

    private final Process process;
    private final URI front;
    private final URI admin;
    private final String token;

    private ServerProcess(Process process, URI front, URI admin, String token) {
        this.process = process;
        this.front = front;
        this.admin = admin;
        this.token = token;
    }

    /** Starts {@code sluice-server --state STATE ARGS} and waits until it says where it listens. */
    static ServerProcess start(Path state, Path log, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                // sluice-server with the tests' site behind it for --demo (the server jar refuses --demo)
                "-cp", System.getProperty("java.class.path"), "io.sluice.server.testkit.TestSiteServer",
                "--state", state.toString()));
        command.addAll(args);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        CompletableFuture<URI[]> listening = CompletableFuture.supplyAsync(() -> listening(process), OwnThread.EACH);
        try {
            URI[] uris = listening.get(START_PATIENCE.toSeconds(), TimeUnit.SECONDS);
            String token = Files.readString(state.resolve("admin-token"), StandardCharsets.UTF_8).strip();
            return new ServerProcess(process, uris[0], uris[1], token);
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IllegalStateException("sluice-server did not start; its log: " + log, e);
        }
    }

    /** Reads the server's standard output until both listeners are named; then drains it in the background. */
    private static URI[] listening(Process process) {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        URI front = null;
        URI admin = null;
        try {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                Matcher f = FRONT.matcher(line);
                Matcher a = ADMIN.matcher(line);
                if (f.find()) {
                    front = URI.create(f.group(1));
                } else if (a.find()) {
                    admin = URI.create(a.group(1));
                }
                if (front != null && admin != null) {
                    Thread drain = new Thread(() -> out.lines().forEach(ignored -> { }), "server-stdout");
                    drain.setDaemon(true);
                    drain.start();
                    return new URI[] {front, admin};
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("sluice-server exited before naming its listeners");
    }

    URI front() {
        return front;
    }

    URI admin() {
        return admin;
    }

    String token() {
        return token;
    }

    /** {@code kill -9}: no shutdown hook runs, nothing is flushed. */
    void killHard() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(START_PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    killHard();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
