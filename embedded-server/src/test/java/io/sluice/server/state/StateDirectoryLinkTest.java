package io.sluice.server.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A state directory given as a symbolic link (to a larger disk, say), as an operator sets it up: the link is
 * followed and the directory it points to is checked; a link to nothing is named as such.
 */
class StateDirectoryLinkTest {
    @TempDir
    Path dir;

    @BeforeEach
    void posixOnly() {
        assumeTrue(AtomicFiles.posix(), "owners and modes are POSIX's");
    }

    @Test
    void aLinkToAnOwnerOnlyDirectoryIsFollowed() throws Exception {
        Path real = Files.createDirectory(dir.resolve("disk"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path link = Files.createSymbolicLink(dir.resolve("state"), real);

        StateDirectory state = StateDirectory.open(link, null);

        assertThat(state.adminToken()).isNotBlank();
        assertThat(real.resolve(StateDirectory.TOKEN)).as("written where the link points").isRegularFile();
        assertThat(StateDirectory.open(link, null).adminToken()).as("and read there again")
                .isEqualTo(state.adminToken());
    }

    @Test
    void aLinkToADirectoryOthersCanWriteNamesThatDirectory() throws Exception {
        Path real = Files.createDirectory(dir.resolve("disk"));
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rwxrwx---"));
        Path link = Files.createSymbolicLink(dir.resolve("state"), real);

        assertThatThrownBy(() -> StateDirectory.open(link, null)).isInstanceOf(StateException.class)
                .hasMessageContaining("state directory " + link + " (a link to " + real.toRealPath() + ")")
                .hasMessageContaining("is writable by others (mode rwxrwx---): run chmod 700 " + real.toRealPath());
    }

    @Test
    void aLinkToNothingSaysSo() throws Exception {
        Path gone = dir.resolve("unmounted/sluice");
        Path link = Files.createSymbolicLink(dir.resolve("state"), gone);

        assertThatThrownBy(() -> StateDirectory.open(link, null)).isInstanceOf(StateException.class)
                .hasMessage("state directory " + link + " is a symbolic link to " + gone + ", which does not exist: "
                        + "create that directory (owner-only, mode 700) or point the link at one");
    }
}
