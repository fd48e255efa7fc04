package io.sluice.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConsoleOptionsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int handle(String... args) {
        return ConsoleOptions.handle(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aUrlWithItsTokenFileAndANameToRememberItBy() {
        ConsoleOptions options = ConsoleOptions.parse("--url", "https://ops.example:9090/", "--token-file",
                "/tmp/t", "--token-name", "alice", "--remember", "prod");

        assertThat(options.url()).isEqualTo(URI.create("https://ops.example:9090/"));
        assertThat(options.tokenFile()).isEqualTo(Path.of("/tmp/t"));
        assertThat(options.tokenName()).isEqualTo("alice");
        assertThat(options.remember()).isEqualTo("prod");
        assertThat(ConsoleOptions.parse().tokenName()).isEqualTo("admin");
        assertThat(handle("--server", "prod")).as("start the console").isEqualTo(-1);
    }

    @Test
    void mistakesAreSaidBeforeAnyWindowOpens() {
        assertThatThrownBy(() -> ConsoleOptions.parse("--url", "https://ops.example:9090/"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessage("--url needs --token-file FILE");
        assertThatThrownBy(() -> ConsoleOptions.parse("--demo", "--server", "prod"))
                .hasMessage("give one of --demo, --server and --url");
        assertThatThrownBy(() -> ConsoleOptions.parse("--token-file", "/tmp/t"))
                .hasMessage("--token-file and --remember go with --url");

        assertThat(handle("--sevrer", "prod")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown options: '--sevrer'",
                "Possible solutions: --server",
                "Usage: sluice console");
    }

    @Test
    void helpListsEveryOption() {
        assertThat(handle("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--demo", "--server=NAME", "--url=URL",
                "--token-file=FILE", "--token-name=NAME", "--remember=NAME", "--config-dir=DIR", "--version");
    }
}
