package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --redis} and {@code --node-name} on the command line: bad ones are usage errors naming the problem. */
class ClusterCliTest {
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    @Test
    void aRedisUrlOfAnotherSchemeIsRefused() {
        assertThat(run("--demo", "--redis", "http://127.0.0.1:6379")).isEqualTo(2);
        assertThat(err.toString()).contains("redis:// or rediss://");
    }

    @Test
    void aRedisUrlWhosePathIsNotADatabaseNumberIsRefused() {
        assertThat(run("--demo", "--redis", "redis://127.0.0.1:6379/cache")).isEqualTo(2);
        assertThat(err.toString()).contains("database number");
    }

    @Test
    void aNodeNameWithoutRedisIsRefused() {
        assertThat(run("--demo", "--node-name", "web-1")).isEqualTo(2);
        assertThat(err.toString()).contains("--node-name needs --redis");
    }

    @Test
    void aNodeNameWithASpaceIsRefused() {
        assertThat(run("--demo", "--redis", "redis://127.0.0.1", "--node-name", "web 1")).isEqualTo(2);
        assertThat(err.toString()).contains("node name");
    }
}
