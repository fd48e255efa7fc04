package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.front.AccessLog;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --config FILE}: the file's values under the command line's, over the defaults; a bad line stops the start. */
class MainConfigFileTest {
    @TempDir
    Path dir;

    private final CommandLineRun cli = new CommandLineRun();

    private Path file(String... lines) throws Exception {
        return Files.write(dir.resolve("sluice.conf"), List.of(lines));
    }

    private static ServerConfig resolve(String... args) throws Exception {
        CommandLine command = Main.commandLine();
        command.parseArgs(args);
        Main main = command.getCommand();
        return main.overConfigFile().serverConfig();
    }

    @Test
    void theCommandLineWinsOverTheFileAndTheFileOverTheDefaults() throws Exception {
        Path conf = file(
                "upstream = http://127.0.0.1:3000",
                "upstream-timeout = 12",
                "max-connections-per-address = 5",
                "access-log = " + dir.resolve("access.log"),
                "access-log-format = json",
                "admin-hostname = a.example, b.example",
                "admin-insecure = true");

        ServerConfig config = resolve("--config", conf.toString(), "--upstream-timeout", "7");

        assertThat(config.upstreamTimeout()).isEqualTo(Duration.ofSeconds(7)); // command line
        assertThat(config.upstream()).isEqualTo(URI.create("http://127.0.0.1:3000")); // file
        assertThat(config.limits().frontPerAddress()).isEqualTo(5);
        assertThat(config.accessLogFormat()).isEqualTo(AccessLog.Format.JSON);
        assertThat(config.adminOptions().hostNames()).containsExactlyInAnyOrder("a.example", " b.example".strip());
        assertThat(config.adminOptions().insecure()).isTrue();
        assertThat(config.listen()).isEqualTo(new HostPort("0.0.0.0", 8080)); // default
    }

    @Test
    void anUnknownKeyStopsTheStartNamingItsLine() throws Exception {
        Path conf = file("upstream = http://127.0.0.1:3000", "# comment", "upstream-timout = 5");

        assertThat(cli.run("--config", conf.toString())).isEqualTo(1);

        assertThat(cli.err()).contains(conf + ":3: unknown key 'upstream-timout'; did you mean upstream-timeout?");
    }

    @Test
    void aBadValueStopsTheStartNamingItsLineAndKey() throws Exception {
        Path conf = file("upstream = http://127.0.0.1:3000", "listen = nowhere", "upstream-timeout = 0",
                "demo = yes");

        assertThat(cli.run("--config", conf.toString())).isEqualTo(1);

        assertThat(cli.err()).contains(conf + ":2: listen: ", conf + ":3: upstream-timeout must be positive, not '0'",
                conf + ":4: demo must be true or false, not 'yes'");
    }

    @Test
    void aMissingFileIsOneLine() {
        assertThat(cli.run("--config", dir.resolve("none.conf").toString())).isEqualTo(1);

        assertThat(cli.err()).contains(dir.resolve("none.conf") + ": cannot read: no such file");
    }
}
