package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigReload;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.Servers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A reload as {@code sluice-server --config FILE} wires it, in this JVM (the signal itself: config.ReloadTest): a
 * logrotate night with a mistake in the file still gets its access log re-opened, and the log says what was refused.
 */
class MainReloadTest {
    private static final Duration PATIENCE = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<String> said = new CopyOnWriteArrayList<>();

    @Test
    void aBrokenFileStillReopensTheAccessLogAndSaysWhatItRefused() throws Exception {
        Path log = dir.resolve("access.log");
        Path conf = dir.resolve("sluice.conf");
        List<String> settings = new ArrayList<>(List.of("listen = 127.0.0.1:0", "admin = 127.0.0.1:0",
                "upstream = http://127.0.0.1:" + closedPort(), "state = " + dir.resolve("state"),
                "access-log = " + log));
        Files.write(conf, settings);
        CommandLine cli = Main.commandLine();
        cli.parseArgs("--config", conf.toString());
        Main main = ((Main) cli.getCommand()).overConfigFile();
        ServerConfig config = main.serverConfig();
        SluiceServer server = servers.add(SluiceServer.start(config));
        ConfigReload reload = main.reloader(server, config, said::add);

        request(server, "/before");
        Await.await(() -> lines(log) == 1, "the first line in the access log");

        Path rotated = dir.resolve("access.log.1");
        Files.move(log, rotated); // logrotate
        Files.writeString(conf, "max-connections-per-address = 8\nbogus = 1\n", StandardOpenOption.APPEND);
        reload.reload();

        request(server, "/after");
        Await.await(() -> lines(log) == 1, "a new access log of the old name");
        assertThat(Files.readString(log)).contains("/after");
        assertThat(Files.readString(rotated)).contains("/before").doesNotContain("/after");
        assertThat(String.join("\n", said)).as("what was refused, and that the log was re-opened all the same")
                .contains(conf + ":7: unknown key 'bogus'", "nothing in it was applied", "access log re-opened");
    }

    private void request(SluiceServer server, String path) throws Exception {
        // Nothing listens upstream: a 502, logged like any other request.
        http.send(HttpRequest.newBuilder(server.frontUri().resolve(path)).timeout(PATIENCE).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static long lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
