package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice-server config check}, as an operator runs it: exit codes and {@code FILE:LINE: message} lines. */
class ConfigCheckTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int check(Path file, String... more) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("config", "check", "--config", file.toString()));
        args.addAll(List.of(more));
        return cli.execute(args.toArray(String[]::new));
    }

    private Path file(String... lines) throws Exception {
        return Files.write(dir.resolve("sluice.conf"), List.of(lines));
    }

    @Test
    void aGoodFileIsOk() throws Exception {
        Path policy = Files.writeString(dir.resolve("policy.json"),
                PolicyJson.mapper().writeValueAsString(Policy.defaults()));
        Path conf = file("listen = 127.0.0.1:8080", "upstream = https://example.com", "state = " + dir.resolve("s"),
                "policy = " + policy, "access-log-format = JSON", "max-connections-per-address = 8");

        assertThat(check(conf)).as(err.toString()).isEqualTo(0);

        assertThat(out.toString()).isEqualTo(conf + ": configuration OK" + System.lineSeparator());
        assertThat(dir.resolve("s")).doesNotExist(); // checked, not created
    }

    @Test
    void everyBadLineIsNamedAndTheExitIsOne() throws Exception {
        Path conf = file(
                "upstream = ftp://example.com",
                "# a comment",
                "listn = 127.0.0.1:80",
                "max-connections = many",
                "min-body-rate = -1",
                "access-log-format = xml",
                "front-path = fast",
                "config = /etc/other.conf");

        assertThat(check(conf)).isEqualTo(1);

        assertThat(lines(err)).containsExactly(
                conf + ":1: upstream must be an http:// or https:// URL, not 'ftp://example.com'",
                conf + ":3: unknown key 'listn'; did you mean listen?",
                conf + ":4: max-connections: 'many' is not an int",
                conf + ":5: min-body-rate must be 0 or more, not '-1'",
                conf + ":6: access-log-format: expected one of [NCSA, JSON] (case-insensitive) but was 'xml'",
                conf + ":7: front-path must be lean or proxy, not 'fast'",
                conf + ":8: unknown key 'config': it says how to run sluice-server, not how the server runs",
                conf + ": configuration has 7 problems");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aPolicyFileThatDoesNotValidateIsNamedOnItsLine() throws Exception {
        Path policy = Files.writeString(dir.resolve("policy.json"), PolicyJson.mapper().writeValueAsString(
                Policy.defaults()).replaceFirst("\"maxActive\" *: *[0-9]+", "\"maxActive\": -5"));
        Path conf = file("upstream = http://127.0.0.1:3000", "state = " + dir.resolve("s"), "policy = " + policy);

        assertThat(check(conf)).isEqualTo(1);

        assertThat(lines(err).get(0)).startsWith(conf + ":3: invalid policy file " + policy + ": ");
    }

    @Test
    void anIpToAsnFileWithABadLineIsNamedOnItsLineAndAGoodOneIsOk() throws Exception {
        Path asns = Files.writeString(dir.resolve("ip2asn-v4.tsv"), "1.0.0.0\t1.0.0.255\t13335\tUS\tX\n"
                + "1.0.1.0\t1.0.1.255\tAS7\tUS\tY\n");
        Path conf = file("upstream = http://127.0.0.1:3000", "state = " + dir.resolve("s"), "asn-file = " + asns);

        assertThat(check(conf)).isEqualTo(1);
        assertThat(lines(err).get(0)).isEqualTo(conf + ":3: the IP-to-ASN file cannot be used: " + asns
                + " line 2: the AS number 'AS7' is not a number from 0 to 4294967295");

        Files.writeString(asns, "1.0.0.0\t1.0.0.255\t13335\tUS\tX\n");
        err.getBuffer().setLength(0);
        assertThat(check(conf)).as(err.toString()).isEqualTo(0);

        Files.delete(asns);
        err.getBuffer().setLength(0);
        assertThat(check(conf)).isEqualTo(1);
        assertThat(lines(err).get(0)).isEqualTo(conf + ":3: the IP-to-ASN file " + asns
                + " cannot be read: no such file");
    }

    @Test
    void aStateDirectoryThatCannotBeMadeIsNamedOnItsLine() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("plain-file"), "x");
        Path conf = file("upstream = http://127.0.0.1:3000", "state = " + notADirectory);

        assertThat(check(conf)).isEqualTo(1);

        assertThat(lines(err).get(0)).isEqualTo(conf + ":2: state directory " + notADirectory
                + " is not a directory");
    }

    @Test
    void runAsRootWithoutUserItSaysItCannotJudgeTheStateDirectoryRatherThanFindingItWritable() throws Exception {
        assumeTrue(new UnixSystem().getUid() == 0, "as root: root may write anywhere");
        Path state = Files.createDirectory(dir.resolve("state"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("r-x------")));
        Path conf = file("upstream = http://127.0.0.1:3000", "state = " + state);

        assertThat(check(conf)).as(err.toString()).isEqualTo(0);

        assertThat(err.toString()).contains(conf + ": note: run as root, who may write anywhere, the check cannot "
                + "tell whether the service's user can use the state directory: not judged (add --user USER");
    }

    @Test
    void withUserTheStateDirectoryIsJudgedAsAStartAsThatUserWouldJudgeIt() throws Exception {
        String me = System.getProperty("user.name");
        assumeTrue(!"nobody".equals(me), "judges for another user than the one running the test");
        Path state = Files.createDirectory(dir.resolve("state"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path conf = file("upstream = http://127.0.0.1:3000", "state = " + state);

        assertThat(check(conf, "--user", me)).as(err.toString()).isEqualTo(0);
        assertThat(check(conf, "--user", "nobody")).isEqualTo(1);
        assertThat(err.toString()).contains(conf + ":2: state directory " + state + " belongs to " + me
                + ", not to nobody: the server, run as nobody, would refuse it (chown -R nobody " + state + ")");

        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rwxrwx---"));
        assertThat(check(conf, "--user", me)).isEqualTo(1);
        assertThat(err.toString()).contains(conf + ":2: state directory " + state + " is writable by others (mode "
                + "rwxrwx---): the server would refuse it (chmod 700 " + state + ")");

        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path missing = dir.resolve("not-yet");
        Path later = file("upstream = http://127.0.0.1:3000", "state = " + missing);
        assertThat(check(later, "--user", "nobody")).isEqualTo(1);
        assertThat(err.toString()).contains(later + ":2: nobody cannot reach " + missing + ": ");

        assertThat(check(later, "--user", "no-such-user-50")).isEqualTo(1);
        assertThat(err.toString()).contains(later + ": --user no-such-user-50: no such user on this machine");
    }

    @Test
    void whatNoSingleLineCausesNamesTheFile() throws Exception {
        Path conf = file("state = " + dir.resolve("s"), "node-name = web-1");

        assertThat(check(conf)).isEqualTo(1);

        assertThat(lines(err).get(0)).isEqualTo(conf + ": give --upstream URL or --demo");
    }

    @Test
    void aMissingFileIsAProblemToo() {
        assertThat(check(dir.resolve("absent.conf"))).isEqualTo(1);

        assertThat(lines(err).get(0)).isEqualTo(dir.resolve("absent.conf") + ": cannot read: no such file");
    }

    @Test
    void theShippedFileIsOk() throws Exception {
        // As installed, but with its state directory here (the test cannot create /var/lib/sluice).
        List<String> shipped = new ArrayList<>(Files.readAllLines(shipped()));
        shipped.replaceAll(line -> line.startsWith("state = ") ? "state = " + dir.resolve("state") : line);
        Path conf = file(shipped.toArray(String[]::new));

        assertThat(check(conf)).as(err.toString()).isEqualTo(0);
        assertThat(out.toString()).contains("configuration OK");
    }

    @Test
    void theShippedFileSetsWhatThePackageExpects() throws Exception {
        ConfigFile file = Main.validator().load(shipped());

        assertThat(file.entries()).extracting(ConfigFile.Entry::key, ConfigFile.Entry::value).containsExactly(
                tuple("listen", "0.0.0.0:8080"),
                tuple("upstream", "http://127.0.0.1:3000"),
                tuple("state", "/var/lib/sluice"),
                tuple("access-log", "/var/log/sluice/access.log"),
                tuple("admin", "127.0.0.1:9090"));
    }

    static Path shipped() {
        Path here = Path.of("").toAbsolutePath();
        Path conf = here.resolve("ops/package/sluice.conf");
        return Files.exists(conf) ? conf : here.getParent().resolve("ops/package/sluice.conf");
    }

    private static List<String> lines(StringWriter writer) {
        return writer.toString().lines().toList();
    }
}
