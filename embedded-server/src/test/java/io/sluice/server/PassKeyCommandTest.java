package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.PassKeyRing;
import io.sluice.server.state.PassKeyFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassKeyCommandTest {
    private static final long WEEK = 7 * 24 * 3600 * 1000L;

    @TempDir
    Path state;

    private final CommandLineRun cli = new CommandLineRun();

    @Test
    void rotateMakesANewKeyAndKeepsTheCurrentOneForOnePassLifetime() throws Exception {
        PassKeyRing first = PassKeyFile.loadOrCreate(state, new SecureRandom());
        long before = System.currentTimeMillis();

        assertThat(cli.run("pass-key", "rotate", "--state", state.toString())).as(cli.err()).isZero();

        PassKeyRing rotated = PassKeyFile.load(state);
        assertThat(rotated.current()).isNotEqualTo(first.current());
        assertThat(rotated.previous()).isEqualTo(first.current());
        assertThat(rotated.previousAcceptedUntilMillis()).isBetween(before + WEEK, System.currentTimeMillis() + WEEK);
        assertThat(cli.out()).contains(String.format("%08x", rotated.current().id()),
                String.format("the previous key %08x is accepted until", first.current().id()))
                .doesNotContain("retired");
        // like a token's change, a rotation is the CLI's and the audit log says so
        assertThat(Files.readString(state.resolve("audit.log"))).contains("\"who\":\"cli:", "pass-key.rotate",
                String.format("new key %08x", rotated.current().id()));

        assertThat(cli.run("pass-key", "rotate", "--state", state.toString(), "--pass-ttl-seconds", "60")).isZero();
        PassKeyRing again = PassKeyFile.load(state);
        assertThat(again.previous()).isEqualTo(rotated.current());
        assertThat(again.previousAcceptedUntilMillis()).isLessThanOrEqualTo(System.currentTimeMillis() + 60_000);
        assertThat(cli.out()).contains(String.format("the key before it, %08x, is retired", first.current().id()));
    }

    @Test
    void withoutAKeyFileOrAStateDirectoryItSaysSoAndMakesNothing() throws Exception {
        assertThat(cli.run("pass-key", "rotate", "--state", state.toString())).isEqualTo(1);
        assertThat(cli.err()).contains("no browser pass key file", "first start");
        assertThat(Files.exists(state.resolve(PassKeyFile.FILE))).isFalse();

        assertThat(cli.run("pass-key", "rotate", "--state", state.resolve("nowhere").toString())).isEqualTo(1);
        assertThat(cli.err()).contains("no state directory");
    }

    @Test
    void aDamagedKeyFileIsReportedAndLeftAsItIs() throws Exception {
        PassKeyFile.loadOrCreate(state, new SecureRandom());
        Path file = state.resolve(PassKeyFile.FILE);
        Files.writeString(file, "current=not base64\n");
        assertThat(cli.run("pass-key", "rotate", "--state", state.toString())).isEqualTo(1);
        assertThat(cli.err()).contains("corrupt browser pass key file", "current is not base64");
        assertThat(Files.readString(file)).isEqualTo("current=not base64\n");
    }

    @Test
    void aLifetimeIsZeroToTenYears() {
        PassKeyFile.loadOrCreate(state, new SecureRandom());
        assertThat(cli.run("pass-key", "rotate", "--state", state.toString(), "--pass-ttl-seconds", "-1"))
                .isEqualTo(2);
        assertThat(cli.err()).contains("--pass-ttl-seconds is 0 to");
        assertThat(cli.run("pass-key", "rotate", "--state", state.toString(), "--pass-ttl-seconds", "x"))
                .isEqualTo(2);
    }
}
