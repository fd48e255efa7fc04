package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code --redis} and {@code --node-name} on the command line: bad ones are usage errors naming the problem. */
class ClusterCliTest {
    private final CommandLineRun cli = new CommandLineRun();

    private int run(String... args) {
        return cli.run(args);
    }

    @Test
    void aRedisUrlOfAnotherSchemeIsRefused() {
        assertThat(run("--demo", "--redis", "http://127.0.0.1:6379")).isEqualTo(2);
        assertThat(cli.err()).contains("redis:// or rediss://");
    }

    @Test
    void aRedisUrlWhosePathIsNotADatabaseNumberIsRefused() {
        assertThat(run("--demo", "--redis", "redis://127.0.0.1:6379/cache")).isEqualTo(2);
        assertThat(cli.err()).contains("database number");
    }

    @Test
    void aNodeNameWithoutRedisIsRefused() {
        assertThat(run("--demo", "--node-name", "web-1")).isEqualTo(2);
        assertThat(cli.err()).contains("--node-name needs --redis");
    }

    @Test
    void aNodeNameWithASpaceIsRefused() {
        assertThat(run("--demo", "--redis", "redis://127.0.0.1", "--node-name", "web 1")).isEqualTo(2);
        assertThat(cli.err()).contains("node name");
    }
}
