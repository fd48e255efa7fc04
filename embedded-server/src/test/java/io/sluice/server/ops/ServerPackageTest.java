package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.server.testkit.RealParts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code scripts/package-server.sh} builds (docs/manual/installing-the-server.md): control fields, files
 * with their modes, conffiles, the systemd unit as systemd reads it, and maintainer scripts that parse.
 */
@RealParts
class ServerPackageTest {
    private static final Pattern EXPOSURE = Pattern.compile("Overall exposure level for \\S+: ([0-9.]+)");

    @TempDir
    static Path root;

    @BeforeAll
    static void unpack() throws Exception {
        ServerPackage.unpack(root);
    }

    @Test
    void controlFieldsSayWhatItIsAndWhatItNeeds() throws Exception {
        String mavenVersion;
        try (JarFile jar = new JarFile(ServerPackage.jar().toFile())) {
            mavenVersion = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
        }

        assertThat(ServerPackage.field("Package")).isEqualTo("sluice-server");
        // 0.1.0-SNAPSHOT is 0.1.0~SNAPSHOT: a snapshot sorts before its release, as Debian's tilde does.
        assertThat(ServerPackage.field("Version")).isEqualTo(mavenVersion.replace('-', '~'));
        assertThat(ServerPackage.deb().getFileName().toString())
                .isEqualTo("sluice-server_" + mavenVersion.replace('-', '~') + "_all.deb");
        assertThat(ServerPackage.field("Architecture")).isEqualTo("all");
        assertThat(ServerPackage.field("Depends").split(",\\s*"))
                .contains("default-jre-headless (>= 2:1.17) | java17-runtime-headless", "adduser");
        assertThat(Integer.parseInt(ServerPackage.field("Installed-Size")))
                .as("KiB installed, at least the jar").isGreaterThanOrEqualTo((int) (Files.size(ServerPackage.jar())
                        / 1024));
    }

    @Test
    void filesAreWhereTheyBelongWithTheirModes() throws Exception {
        Map<String, ServerPackage.Entry> contents = ServerPackage.contents();

        assertThat(contents).containsKeys("./usr/share/sluice/sluice-server.jar", "./usr/bin/sluice-server",
                "./lib/systemd/system/sluice.service", "./etc/sluice/sluice.conf", "./etc/logrotate.d/sluice",
                "./etc/default/sluice", "./var/lib/sluice/", "./var/log/sluice/");
        assertThat(contents.values()).as("owned by root in the package; postinst hands some to sluice")
                .allSatisfy(entry -> assertThat(entry.owner()).as(entry.path()).isEqualTo("root/root"));
        assertThat(mode(contents, "./usr/share/sluice/sluice-server.jar")).isEqualTo("-rw-r--r--");
        assertThat(mode(contents, "./usr/bin/sluice-server")).isEqualTo("-rwxr-xr-x");
        assertThat(mode(contents, "./lib/systemd/system/sluice.service")).isEqualTo("-rw-r--r--");
        assertThat(mode(contents, "./etc/sluice/sluice.conf")).as("may hold a Redis password").isEqualTo("-rw-r-----");
        assertThat(mode(contents, "./etc/default/sluice")).isEqualTo("-rw-r-----");
        assertThat(mode(contents, "./etc/logrotate.d/sluice")).isEqualTo("-rw-r--r--");
        assertThat(mode(contents, "./var/lib/sluice/")).isEqualTo("drwx------");
        assertThat(mode(contents, "./var/log/sluice/")).isEqualTo("drwxr-x---");
        assertThat(root.resolve("usr/share/sluice/sluice-server.jar")).as("the jar Maven built")
                .hasSameBinaryContentAs(ServerPackage.jar());
        assertThat(Files.readString(root.resolve("usr/bin/sluice-server")))
                .startsWith("#!/bin/sh\n").contains("exec \"$JAVA\" $JAVA_OPTS -jar");
    }

    @Test
    void everyFileUnderEtcIsAConffile() throws Exception {
        List<String> conffiles = ServerPackage.controlFile("conffiles").lines().map(String::trim).toList();
        List<String> underEtc = ServerPackage.contents().keySet().stream()
                .filter(path -> path.startsWith("./etc/") && !path.endsWith("/"))
                .map(path -> path.substring(1)).toList();

        assertThat(conffiles).containsExactlyInAnyOrder("/etc/sluice/sluice.conf", "/etc/logrotate.d/sluice",
                "/etc/default/sluice");
        assertThat(conffiles).containsExactlyInAnyOrderElementsOf(underEtc);
    }

    @Test
    void maintainerScriptsParseInShAndBash() throws Exception {
        for (String script : List.of("postinst", "prerm", "postrm")) {
            Path file = root.resolve("DEBIAN").resolve(script);
            assertThat(file).as(script).isExecutable();
            assertThat(Files.readString(file)).as(script).startsWith("#!/bin/sh\n").contains("\nset -e\n");
            for (String shell : List.of("sh", "bash")) {
                ProcessRun check = ProcessRun.of(root, shell, "-n", file.toString());
                assertThat(check.exit()).as(shell + " -n " + script + ": " + check.output()).isZero();
            }
        }
    }

    @Test
    void systemdReadsTheUnitWithoutAWarningAndRatesItHardened() throws Exception {
        Path unit = root.resolve("lib/systemd/system/sluice.service");
        String text = Files.readString(unit);
        assertThat(text).contains("\nUser=sluice\n", "\nExecStart=/usr/bin/sluice-server --config "
                + "/etc/sluice/sluice.conf\n", "\nExecReload=/bin/kill -HUP $MAINPID\n", "\nRestart=on-failure\n",
                "\nKillSignal=SIGTERM\n", "\nSuccessExitStatus=143\n", "\nProtectSystem=strict\n",
                "\nReadWritePaths=/var/lib/sluice /var/log/sluice\n",
                "\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n", "\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\n");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/systemd-analyze")),
                "systemd-analyze not installed: the unit is not verified here (Debian: apt-get install systemd)");
        // verify wants ExecStart's program to exist: the launcher is the unpacked one, the unit otherwise as shipped.
        Path checked = root.resolve("verify/sluice.service");
        Files.createDirectories(checked.getParent());
        Files.writeString(checked, text.replace("ExecStart=/usr/bin/sluice-server",
                "ExecStart=" + root.resolve("usr/bin/sluice-server")));

        ProcessRun verify = ProcessRun.of(root, "systemd-analyze", "verify", checked.toString());
        assertThat(verify.exit()).as(verify.output()).isZero();
        assertThat(verify.output()).as("systemd-analyze verify: every warning is a setting systemd ignores")
                .isEmpty();

        ProcessRun security = ProcessRun.of(root, "systemd-analyze", "security", "--offline=true",
                checked.toString());
        Matcher exposure = EXPOSURE.matcher(security.output());
        assertThat(exposure.find()).as(security.output()).isTrue();
        // systemd's scale: below 5 is "OK" or better; an unhardened service scores 9.6 ("UNSAFE").
        assertThat(Double.parseDouble(exposure.group(1))).as(security.output()).isLessThan(5.0);
    }

    private static String mode(Map<String, ServerPackage.Entry> contents, String path) {
        return contents.get(path).mode();
    }
}
