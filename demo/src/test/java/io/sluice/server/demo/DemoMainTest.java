package io.sluice.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code java -jar sluice-demo.jar}: the server's command line, with the demo's start and its cluster command. */
class DemoMainTest {
    private final StringWriter err = new StringWriter();

    @Test
    void theDemoJarAddsDemoClusterToTheServersCommands() {
        assertThat(DemoMain.commandLine().getSubcommands()).containsKey("demo-cluster")
                .containsKeys(Main.commandLine().getSubcommands().keySet().toArray(String[]::new));
        assertThat(Main.commandLine().getSubcommands()).doesNotContainKey("demo-cluster");
    }

    @Test
    void demoStartsTheDemoWhereTheServerJarRefusesIt(@TempDir Path state) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();

            int exit = run("--demo", "--listen", "127.0.0.1:" + port, "--admin", "127.0.0.1:0",
                    "--state", state.toString());

            // the demo site started and the front end tried to listen: the server jar would not have got that far
            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).contains("cannot listen on 127.0.0.1:" + port)
                    .doesNotContain("sluice-demo.jar");
        }
    }

    private int run(String... args) {
        CommandLine cli = DemoMain.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }
}
