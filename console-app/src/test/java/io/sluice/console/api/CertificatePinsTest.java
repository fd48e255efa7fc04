package io.sluice.console.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pinned certificates' file ({@code known-servers.json}): written so that a power cut loses no pin. */
class CertificatePinsTest {
    private static final String SERVER = "10.0.0.11:9090";
    private static final CertificatePin PIN = CertificatePin.parse("SHA256:" + "AB".repeat(32));

    @TempDir
    Path dir;

    /** Each fsync: what was forced (its text, for a file), and what the pins' file held at that moment. */
    private record Forced(Path path, String text, String fileThen) {
    }

    @Test
    void aPinIsOnTheDiskBeforeItIsTrustedTheFileFsyncedThenRenamedThenItsDirectoryFsynced() throws Exception {
        Path file = dir.resolve("console/known-servers.json");
        List<Forced> forced = new ArrayList<>();
        DurableFile recording = new DurableFile((channel, path) -> {
            channel.force(true);
            forced.add(new Forced(path, Files.isRegularFile(path) ? read(path) : null,
                    Files.exists(file) ? read(file) : null));
        });

        CertificatePins.inFile(file, recording).pin(SERVER, PIN);

        assertThat(forced).as("the new file's bytes, then the rename in its directory").hasSize(2);
        assertThat(forced.get(0).path()).as("a temp file beside it").isNotEqualTo(file)
                .hasParentRaw(file.getParent());
        assertThat(forced.get(0).text()).as("holding the new pin").contains(SERVER, PIN.fingerprint());
        assertThat(forced.get(0).fileThen()).as("forced before it replaces the file").isNull();
        assertThat(forced.get(1).path()).isEqualTo(file.getParent());
        assertThat(forced.get(1).fileThen()).as("the directory forced once it holds the new file")
                .contains(SERVER, PIN.fingerprint());
        assertThat(CertificatePins.inFile(file).pinned(SERVER)).contains(PIN);
        try (var left = Files.list(file.getParent())) {
            assertThat(left).as("no temp file left").containsExactly(file);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
