package io.sluice.server.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * Stand-ins for system commands (adduser, chown, systemctl...) that record how they were called, one line each
 * ({@code chown sluice:adm /var/log/sluice}), and do nothing else: maintainer scripts run against them change
 * nothing on the machine running the test.
 */
final class RecordingCommands {
    private final Path bin;
    private final Path calls;

    RecordingCommands(Path dir) throws IOException {
        this.bin = Files.createDirectories(dir.resolve("bin"));
        this.calls = dir.resolve("calls");
        Files.createFile(calls);
    }

    /** A command that records its call, then runs {@code body} (sh; {@code exit 0} for one that succeeds). */
    RecordingCommands stub(String name, String body) throws IOException {
        Path file = bin.resolve(name);
        Files.writeString(file, "#!/bin/sh\necho \"" + name + " $*\" >> '" + calls + "'\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    /** The environment that puts the stand-ins first on the PATH. */
    Map<String, String> path() {
        return Map.of("PATH", bin + ":/usr/sbin:/usr/bin:/sbin:/bin");
    }

    /** Every call so far, in order. */
    List<String> calls() throws IOException {
        return Files.readAllLines(calls);
    }
}
