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
    void plainHttpToAnotherMachineAndABadPinAreRefusedBeforeAnyWindowOpens() {
        assertThatThrownBy(() -> ConsoleOptions.parse("--url", "http://ops.example:9090/", "--token-file", "/tmp/t"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--url: refused: http://ops.example would send the token in clear text");
        assertThat(ConsoleOptions.parse("--url", "http://127.0.0.1:9090/", "--token-file", "/tmp/t").url())
                .isEqualTo(URI.create("http://127.0.0.1:9090/"));
        assertThatThrownBy(() -> ConsoleOptions.parse("--url", "https://ops.example:9090/", "--token-file", "/tmp/t",
                "--pin", "SHA256:12:34")).hasMessageStartingWith("--pin: a certificate pin is SHA256: and the 64");
        assertThatThrownBy(() -> ConsoleOptions.parse("--pin", "SHA256:" + "AB".repeat(32)))
                .hasMessage("--pin goes with --url or --server");
        assertThatThrownBy(() -> ConsoleOptions.parse("--url", "http://127.0.0.1:9090/", "--token-file", "/tmp/t",
                "--pin", "SHA256:" + "AB".repeat(32))).hasMessage("--pin is for an https:// URL");
    }

    @Test
    void thePinTheServerPrintsIsTaken() {
        String printed = "SHA256:" + "0F:".repeat(31) + "0F";
        ConsoleOptions options = ConsoleOptions.parse("--url", "https://ops.example:9090/", "--token-file", "/tmp/t",
                "--pin", printed);

        assertThat(options.pin().toString()).isEqualTo(printed);
        assertThat(ConsoleOptions.parse("--server", "prod", "--pin", printed).pin().hex()).isEqualTo("0F".repeat(32));
    }

    @Test
    void helpListsEveryOption() {
        assertThat(handle("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--demo", "--server=NAME", "--url=URL",
                "--token-file=FILE", "--token-name=NAME", "--remember=NAME", "--pin=SHA256:...", "--config-dir=DIR",
                "--version");
    }
}
