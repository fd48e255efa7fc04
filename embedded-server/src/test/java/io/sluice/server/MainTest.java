package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    private final CommandLineRun cli = new CommandLineRun();

    private int run(String... args) {
        return cli.run(args);
    }

    @Test
    void anUnknownFlagIsAUsageError() {
        assertThat(run("--lisen", "127.0.0.1:1")).isEqualTo(2);
        assertThat(cli.err()).contains("'--lisen'", "Possible solutions: --listen");
    }

    @Test
    void withoutUpstreamOrDemoItSaysWhatIsMissing() {
        assertThat(run()).isEqualTo(2);
        assertThat(cli.err()).contains("give --upstream URL or --demo");
    }

    @Test
    void theServerJarSaysWhereTheDemoIsAndStartsNothing(@TempDir Path state) {
        for (String flag : new String[] {"--demo", "--demo-traffic"}) {
            assertThat(run(flag, "--upstream", "http://127.0.0.1:9/", "--listen", "127.0.0.1:0", "--admin",
                    "127.0.0.1:0", "--state", state.toString())).as(flag).isEqualTo(1);
        }
        assertThat(cli.err()).contains("demo/target/sluice-demo.jar");
        assertThat(state).isEmptyDirectory();
    }

    @Test
    void anUpstreamThatIsNotAnHttpUrlIsRefused() {
        assertThat(run("--upstream", "ftp://example.com/")).isEqualTo(2);
        assertThat(cli.err()).contains("--upstream must be an http:// or https:// URL");
    }

    @Test
    void aTakenPortIsAOneLineErrorNamingTheAddress(@TempDir Path state) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();

            int exit = run("--upstream", "http://127.0.0.1:9/", "--listen", "127.0.0.1:" + port,
                    "--admin", "127.0.0.1:0", "--state", state.toString());

            assertThat(exit).isEqualTo(1);
            assertThat(cli.err()).contains("cannot listen on 127.0.0.1:" + port);
        }
    }

    @Test
    void anUnwritableStateDirectoryIsReported(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not-a-dir");
        Files.writeString(file, "x");

        int exit = run("--upstream", "http://127.0.0.1:9/", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
                "--state", file.resolve("state").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(cli.err()).contains("cannot create state directory");
    }
}
