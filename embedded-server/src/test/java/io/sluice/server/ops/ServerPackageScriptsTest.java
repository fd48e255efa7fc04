package io.sluice.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testkit.RealParts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package's maintainer scripts as dpkg runs them (docs/manual/installing-the-server.md), against a throwaway
 * system root ({@code DPKG_ROOT}) and recording stand-ins for adduser, chown, chmod, dpkg-statoverride and the
 * systemd helpers: the user and the ownership of its directories, the service enabled but not started on a first
 * install, restarted only if running on an upgrade, stopped on removal, its state deleted on purge only.
 */
@RealParts
class ServerPackageScriptsTest {
    private static final String UNIT = "sluice.service";

    @TempDir
    static Path unpacked;

    @TempDir
    Path dir;

    private Path system;
    private RecordingCommands commands;

    @BeforeAll
    static void unpack() throws Exception {
        ServerPackage.unpack(unpacked);
    }

    /** A system running systemd where the package's files are unpacked, with every command succeeding. */
    @BeforeEach
    void system() throws IOException {
        system = dir.resolve("system");
        for (String path : List.of("var/lib/sluice", "var/log/sluice", "etc/sluice", "etc/default",
                "run/systemd/system")) {
            Files.createDirectories(system.resolve(path));
        }
        Files.writeString(system.resolve("etc/sluice/sluice.conf"), "state = /var/lib/sluice\n");
        Files.writeString(system.resolve("etc/default/sluice"), "JAVA_OPTS=\n");
        commands = new RecordingCommands(dir);
        for (String name : List.of("adduser", "chown", "chmod", "deb-systemd-helper", "deb-systemd-invoke",
                "systemctl")) {
            commands.stub(name, "exit 0");
        }
        // No statoverride: dpkg-statoverride --list finds nothing and exits 1.
        commands.stub("dpkg-statoverride", "exit 1");
    }

    @Test
    void aFirstInstallMakesTheUserHandsItsDirectoriesAndEnablesTheServiceWithoutStartingIt() throws Exception {
        ProcessRun run = script("postinst", "configure");

        assertThat(run.exit()).as(run.output()).isZero();
        List<String> calls = commands.calls();
        assertThat(calls).contains(
                "adduser --system --group --home /var/lib/sluice --no-create-home --quiet sluice",
                "chown sluice:sluice " + system + "/var/lib/sluice", "chmod 0700 " + system + "/var/lib/sluice",
                "chown sluice:adm " + system + "/var/log/sluice", "chmod 2750 " + system + "/var/log/sluice",
                "chown root:sluice " + system + "/etc/sluice/sluice.conf",
                "chmod 0640 " + system + "/etc/sluice/sluice.conf",
                "chown root:sluice " + system + "/etc/default/sluice", "chmod 0640 " + system + "/etc/default/sluice",
                "deb-systemd-helper enable " + UNIT, "systemctl --system daemon-reload");
        assertThat(calls.indexOf("adduser --system --group --home /var/lib/sluice --no-create-home --quiet sluice"))
                .as("the user exists before anything is handed to it").isZero();
        assertThat(systemdActions(calls)).as("not started: the configuration names no site yet").isEmpty();
        assertThat(run.output()).contains("set upstream in /etc/sluice/sluice.conf, then: systemctl start sluice");
    }

    @Test
    void anUpgradeRestartsTheServiceOnlyIfItRuns() throws Exception {
        ProcessRun run = script("postinst", "configure", "0.0.9");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(systemdActions(commands.calls())).containsExactly("deb-systemd-invoke try-restart " + UNIT);
    }

    @Test
    void aServiceTheAdministratorDisabledStaysDisabledOnUpgrade() throws Exception {
        commands.stub("deb-systemd-helper", "case \"$*\" in *was-enabled*) exit 1 ;; esac");

        ProcessRun run = script("postinst", "configure", "0.0.9");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(commands.calls()).contains("deb-systemd-helper update-state " + UNIT)
                .doesNotContain("deb-systemd-helper enable " + UNIT);
    }

    @Test
    void ownersAndModesSetWithDpkgStatoverrideAreKept() throws Exception {
        commands.stub("dpkg-statoverride", "case \"$*\" in '--list /var/lib/sluice') exit 0 ;; esac; exit 1");

        ProcessRun run = script("postinst", "configure");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(commands.calls()).doesNotContain("chown sluice:sluice " + system + "/var/lib/sluice",
                "chmod 0700 " + system + "/var/lib/sluice").contains("chown sluice:adm " + system + "/var/log/sluice");
    }

    @Test
    void withoutSystemdRunningTheServiceIsEnabledForNextBootAndNothingIsStarted() throws Exception {
        Files.delete(system.resolve("run/systemd/system"));

        ProcessRun run = script("postinst", "configure", "0.0.9");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(commands.calls()).contains("deb-systemd-helper enable " + UNIT)
                .noneMatch(call -> call.startsWith("systemctl") || call.startsWith("deb-systemd-invoke"));
    }

    @Test
    void removalStopsTheServiceAndAnUpgradeLeavesItRunning() throws Exception {
        assertThat(script("prerm", "upgrade", "0.2.0").exit()).isZero();
        assertThat(systemdActions(commands.calls())).as("prerm upgrade").isEmpty();

        ProcessRun run = script("prerm", "remove");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(systemdActions(commands.calls())).containsExactly("deb-systemd-invoke stop " + UNIT);
    }

    @Test
    void removalKeepsTheStateAndPurgeDeletesItWithTheLogs() throws Exception {
        Files.writeString(system.resolve("var/lib/sluice/policy.json"), "{}");
        Files.writeString(system.resolve("var/log/sluice/access.log"), "a line\n");

        ProcessRun remove = script("postrm", "remove");

        assertThat(remove.exit()).as(remove.output()).isZero();
        assertThat(system.resolve("var/lib/sluice/policy.json")).exists();
        assertThat(system.resolve("var/log/sluice/access.log")).exists();
        assertThat(commands.calls()).contains("deb-systemd-helper mask " + UNIT);

        ProcessRun purge = script("postrm", "purge");

        assertThat(purge.exit()).as(purge.output()).isZero();
        assertThat(system.resolve("var/lib/sluice")).doesNotExist();
        assertThat(system.resolve("var/log/sluice")).doesNotExist();
        assertThat(system.resolve("etc/sluice/sluice.conf")).as("conffiles are dpkg's to purge").exists();
        assertThat(commands.calls()).contains("deb-systemd-helper purge " + UNIT);
    }

    @Test
    void anUnknownActionFails() throws Exception {
        ProcessRun run = script("postinst", "reconfigure-everything");

        assertThat(run.exit()).isNotZero();
        assertThat(run.output()).contains("unknown argument 'reconfigure-everything'");
        assertThat(commands.calls()).isEmpty();
    }

    /** Runs the packaged maintainer script {@code name} as dpkg would, with {@code DPKG_ROOT} the throwaway root. */
    private ProcessRun script(String name, String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(unpacked.resolve("DEBIAN").resolve(name).toString());
        command.addAll(List.of(arguments));
        Map<String, String> env = new HashMap<>(commands.path());
        env.put("DPKG_ROOT", system.toString());
        return ProcessRun.of(dir, env, command);
    }

    /** The calls that start, stop or restart the service. */
    private static List<String> systemdActions(List<String> calls) {
        return calls.stream().filter(call -> call.matches("(systemctl|deb-systemd-invoke) "
                + "(start|stop|restart|try-restart|reload-or-restart) .*")).toList();
    }
}
