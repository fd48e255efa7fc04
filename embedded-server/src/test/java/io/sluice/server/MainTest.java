package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MainTest {
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    @Test
    void anUnknownFlagIsAUsageError() {
        assertThat(run("--lisen", "127.0.0.1:1")).isEqualTo(2);
        assertThat(err.toString()).contains("'--lisen'", "Possible solutions: --listen");
    }

    @Test
    void withoutUpstreamOrDemoItSaysWhatIsMissing() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("give --upstream URL or --demo");
    }

    @Test
    void anUpstreamThatIsNotAnHttpUrlIsRefused() {
        assertThat(run("--upstream", "ftp://example.com/")).isEqualTo(2);
        assertThat(err.toString()).contains("--upstream must be an http:// or https:// URL");
    }

    @Test
    void aTakenPortIsAOneLineErrorNamingTheAddress(@TempDir Path state) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();

            int exit = run("--demo", "--listen", "127.0.0.1:" + port, "--admin", "127.0.0.1:0",
                    "--state", state.toString());

            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).contains("cannot listen on 127.0.0.1:" + port);
        }
    }

    @Test
    void anUnwritableStateDirectoryIsReported(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not-a-dir");
        java.nio.file.Files.writeString(file, "x");

        int exit = run("--demo", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
                "--state", file.resolve("state").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot create state directory");
    }
}
