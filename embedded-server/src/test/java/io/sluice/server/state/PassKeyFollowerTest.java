package io.sluice.server.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.net.IpAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A running server takes a rotated key without a restart, and keeps its keys when the file goes bad. */
class PassKeyFollowerTest {

    private static final long NOW = 1_790_000_000_000L;
    private static final String AGENT = "Mozilla/5.0 Firefox/128.0";
    private static final IpAddress ADDRESS = IpAddress.parse("192.0.2.7");

    @TempDir
    Path state;
    private final SecureRandom random = new SecureRandom();
    private final BrowserPasses passes = new BrowserPasses(PassKeyRing.of(PassKey.random(new SecureRandom())));

    @Test
    void theStateDirectorysRingIsInstalledAndARotationIsTakenWhileOldPassesStayGood() {
        try (PassKeyFollower follower = PassKeyFollower.start(state, passes, random)) {
            PassKey first = passes.keys().current();
            assertThat(PassKeyFile.load(state).current()).isEqualTo(first);
            String before = passes.mint("abc", false, ADDRESS, AGENT, NOW + 60_000);

            PassKeyFile.rotate(state, NOW, 604_800_000L, random);
            follower.refresh();
            assertThat(passes.keys().current()).isNotEqualTo(first);
            assertThat(passes.keys().previous()).isEqualTo(first);
            assertThat(passes.check(before, ADDRESS, AGENT, NOW)).isNotNull();
        }
    }

    @Test
    void aFileThatCannotBeReadKeepsTheKeysInUse() throws Exception {
        try (PassKeyFollower follower = PassKeyFollower.start(state, passes, random)) {
            PassKeyRing inUse = passes.keys();
            Files.writeString(state.resolve(PassKeyFile.FILE), "not a key file");
            follower.refresh();
            assertThat(passes.keys()).isEqualTo(inUse);
        }
    }

    @Test
    void aDivertedFollowerReportsAChangedFileAndInstallsNothing() {
        try (PassKeyFollower follower = PassKeyFollower.start(state, passes, random)) {
            PassKeyRing inUse = passes.keys();
            int[] reported = {0};
            follower.divert(() -> reported[0]++);
            PassKeyFile.rotate(state, NOW, 604_800_000L, random);
            follower.refresh();
            follower.refresh(); // the same file again: reported once
            assertThat(reported[0]).isEqualTo(1);
            assertThat(passes.keys()).isEqualTo(inUse);
        }
    }
}
