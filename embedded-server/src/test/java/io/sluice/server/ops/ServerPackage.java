package io.sluice.server.ops;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server's Debian package, built by {@code scripts/package-server.sh} once per test run from the jar
 * Maven's package phase made (docs/manual/installing-the-server.md). Tests using it are tier 2, whose profile
 * ({@code -Preal-parts}) runs the tests after package; they skip themselves where dpkg-deb is missing or the jar
 * is not built (a tier-1 phase order, or a run that stopped before package).
 */
final class ServerPackage {
    static final String NO_JAR = "the server jar is built at Maven's package phase: tier 2 runs the tests after "
            + "it: ./mvnw -q -pl embedded-server -am -Preal-parts verify -Dtest='ServerPackage*Test' "
            + "-Dsurefire.failIfNoSpecifiedTests=false";

    private static Path built;

    private ServerPackage() {
    }

    static Path repository() {
        return MonitoringFiles.ops().getParent();
    }

    /** The .deb, built by this run's first call; skips the calling test where it cannot be built. */
    static synchronized Path deb() throws IOException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "needs dpkg-deb (Debian, Ubuntu)");
        assumeTrue(Files.isRegularFile(jar()), NO_JAR);
        if (built == null) {
            ProcessRun build = ProcessRun.of(repository(), "scripts/package-server.sh");
            if (build.exit() != 0) {
                throw new AssertionError("scripts/package-server.sh exited with " + build.exit() + ":\n"
                        + build.output());
            }
            List<String> lines = build.output().lines().toList();
            built = repository().resolve(lines.get(lines.size() - 1));
        }
        return built;
    }

    static Path jar() {
        return repository().resolve("embedded-server/target/sluice-server.jar");
    }

    /** The package's files unpacked into {@code root} ({@code dpkg-deb -x}), its control files in DEBIAN. */
    static Path unpack(Path root) throws IOException {
        Path deb = deb();
        check(ProcessRun.of(root, "dpkg-deb", "-x", deb.toString(), root.toString()));
        check(ProcessRun.of(root, "dpkg-deb", "-e", deb.toString(), root.resolve("DEBIAN").toString()));
        return root;
    }

    /** One line of {@code dpkg-deb -c}: mode ({@code -rw-r--r--}), owner ({@code root/root}) and path. */
    record Entry(String mode, String owner, String path) {
    }

    /** The package's contents by path ({@code ./usr/bin/sluice-server}, {@code ./var/lib/sluice/}). */
    static Map<String, Entry> contents() throws IOException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (String line : check(ProcessRun.of(repository(), "dpkg-deb", "-c", deb().toString())).lines()
                .toList()) {
            String[] fields = line.trim().split("\\s+", 6);
            entries.put(fields[5], new Entry(fields[0], fields[1], fields[5]));
        }
        return entries;
    }

    /** A control field ({@code dpkg-deb -f DEB FIELD}). */
    static String field(String name) throws IOException {
        return check(ProcessRun.of(repository(), "dpkg-deb", "-f", deb().toString(), name)).trim();
    }

    /** A control file's content ({@code dpkg-deb -I DEB FILE}: conffiles, postinst). */
    static String controlFile(String name) throws IOException {
        return check(ProcessRun.of(repository(), "dpkg-deb", "-I", deb().toString(), name));
    }

    private static String check(ProcessRun run) {
        if (run.exit() != 0) {
            throw new AssertionError("dpkg-deb exited with " + run.exit() + ":\n" + run.output());
        }
        return run.output();
    }
}
