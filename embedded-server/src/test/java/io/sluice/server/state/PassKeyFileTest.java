package io.sluice.server.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassKeyFileTest {
    private static final long NOW = 1_790_000_000_000L;
    private static final long WEEK = 7 * 24 * 3600 * 1000L;

    @TempDir
    Path state;

    private final SecureRandom random = new SecureRandom();

    @Test
    void theFirstStartMakesAKeyOwnerOnlyAndLaterStartsReadIt() throws Exception {
        PassKeyRing made = PassKeyFile.loadOrCreate(state, random);
        assertThat(made.previous()).isNull();
        Path file = state.resolve(PassKeyFile.FILE);
        if (AtomicFiles.posix()) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        }
        assertThat(PassKeyFile.loadOrCreate(state, random)).isEqualTo(made);
        assertThat(PassKeyFile.load(state)).isEqualTo(made);
        assertThat(Files.readString(file)).contains("current=").doesNotContain("previous");
    }

    @Test
    void aRotationKeepsTheCurrentKeyForOnePassLifetimeAndRetiresTheOneBefore() throws Exception {
        PassKeyRing first = PassKeyFile.loadOrCreate(state, random);
        PassKeyRing second = PassKeyFile.rotate(state, NOW, WEEK, random);
        assertThat(second.previous()).isEqualTo(first.current());
        assertThat(second.previousAcceptedUntilMillis()).isEqualTo(NOW + WEEK);
        assertThat(PassKeyFile.load(state)).isEqualTo(second);
        assertThat(Files.readString(state.resolve(PassKeyFile.FILE)))
                .contains("previous-accepted-until=2026-09-28T", "Z\n");

        PassKeyRing third = PassKeyFile.rotate(state, NOW + 1, WEEK, random);
        assertThat(third.previous()).isEqualTo(second.current());
        assertThat(third.forId(first.current().id(), NOW + 1)).isNull();
        assertThat(PassKeyFile.load(state)).isEqualTo(third);
        if (AtomicFiles.posix()) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(PassKeyFile.FILE))))
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void theFileRoundTripsEveryRing() {
        PassKey a = PassKey.random(random);
        PassKey b = PassKey.random(random);
        for (PassKeyRing ring : List.of(PassKeyRing.of(a), new PassKeyRing(a, b, NOW), new PassKeyRing(a, b, 0),
                new PassKeyRing(a, b, Long.MAX_VALUE), new PassKeyRing(a, b, -1))) {
            assertThat(PassKeyFile.parse(state, PassKeyFile.format(ring))).isEqualTo(ring);
        }
    }

    @Test
    void aRingFromRedisIsParsedByTheSameRulesAndADamagedOneIsAnErrorSayingWhat() {
        PassKeyRing ring = new PassKeyRing(PassKey.random(random), PassKey.random(random), NOW);
        assertThat(PassKeyFile.parse(PassKeyFile.format(ring))).isEqualTo(ring);
        assertThat(PassKeyFile.format(ring)).isEqualTo(PassKeyFile.format(PassKeyFile.parse(PassKeyFile.format(ring))));
        String[][] cases = {{"", "no current key"}, {"current=abc", "current has 2 bytes"},
            {"hello", "line 1 is not one of"}, {"current=" + "A".repeat(5000), "larger than"}};
        for (String[] damaged : cases) {
            assertThatThrownBy(() -> PassKeyFile.parse(damaged[0])).as(damaged[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(damaged[1]);
        }
    }

    @Test
    void aReplacementIsWrittenOnlyOverTheRingItWasJudgedFrom() throws Exception {
        PassKeyRing first = PassKeyFile.loadOrCreate(state, random);
        PassKeyRing cluster = PassKeyRing.of(PassKey.random(random));
        PassKeyRing rotated = PassKeyFile.rotate(state, NOW, WEEK, random); // an operator's rotation meanwhile

        assertThat(PassKeyFile.replace(state, first, cluster)).isFalse();
        assertThat(PassKeyFile.load(state)).isEqualTo(rotated);
        assertThat(PassKeyFile.replace(state, rotated, cluster)).isTrue();
        assertThat(PassKeyFile.load(state)).isEqualTo(cluster);
        if (AtomicFiles.posix()) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(PassKeyFile.FILE))))
                    .isEqualTo("rw-------");
        }
        // a damaged file holds no rotation to keep: the cluster's ring puts it right
        Files.writeString(state.resolve(PassKeyFile.FILE), "damaged");
        assertThat(PassKeyFile.replace(state, cluster, first)).isFalse();
        assertThat(PassKeyFile.replace(state, null, first)).isTrue();
        assertThat(PassKeyFile.load(state)).isEqualTo(first);
    }

    @Test
    void aDamagedFileIsAClearErrorNeverANewKey() throws Exception {
        PassKeyFile.loadOrCreate(state, random);
        Path file = state.resolve(PassKeyFile.FILE);
        String good = Files.readString(file);
        String key = good.lines().filter(l -> l.startsWith("current=")).findFirst().orElseThrow().substring(8);
        String[][] cases = {
            {"", "no current key"},
            {"# only a comment\n", "no current key"},
            {"current=" + key.substring(4) + "\n", "current has"},
            {"current=%%%%\n", "current is not base64"},
            {"current=" + key + "\ncurrent=" + key + "\n", "current is given twice"},
            {"current=" + key + "\nsecret=x\n", "line 2 is not one of"},
            {"current=" + key + "\nprevious=" + key + "\n", "go together"},
            {"current=" + key + "\nprevious=" + key + "\nprevious-accepted-until=tomorrow\n", "not an instant"},
            {"garbage", "line 1"},
            {"current=" + key + "\n" + "#".repeat(5000), "larger than"},
        };
        for (String[] damaged : cases) {
            Files.writeString(file, damaged[0]);
            assertThatThrownBy(() -> PassKeyFile.loadOrCreate(state, random)).as(damaged[1])
                    .isInstanceOf(StateException.class)
                    .hasMessageContaining("corrupt browser pass key file " + file).hasMessageContaining(damaged[1]);
            assertThatThrownBy(() -> PassKeyFile.rotate(state, NOW, WEEK, random)).isInstanceOf(StateException.class);
            assertThat(Files.readString(file)).isEqualTo(damaged[0]);
        }
    }

    @Test
    void aKeyFileOthersCanReadIsRefused() throws Exception {
        if (!AtomicFiles.posix()) {
            return;
        }
        PassKeyFile.loadOrCreate(state, random);
        Path file = state.resolve(PassKeyFile.FILE);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> PassKeyFile.load(state)).isInstanceOf(StateException.class)
                .hasMessageContaining("browser pass key file").hasMessageContaining("readable or writable by others");
        Files.delete(file);
        Files.createSymbolicLink(file, state.resolve("elsewhere"));
        assertThatThrownBy(() -> PassKeyFile.loadOrCreate(state, random)).isInstanceOf(StateException.class)
                .hasMessageContaining("symbolic link");
    }

    @Test
    void aMissingFileOrDirectoryIsReported() {
        assertThatThrownBy(() -> PassKeyFile.load(state)).isInstanceOf(StateException.class)
                .hasMessageContaining("no browser pass key file");
        assertThatThrownBy(() -> PassKeyFile.rotate(state, NOW, WEEK, random)).isInstanceOf(StateException.class)
                .hasMessageContaining("no browser pass key file");
        assertThatThrownBy(() -> PassKeyFile.loadOrCreate(state.resolve("nowhere"), random))
                .isInstanceOf(StateException.class).hasMessageContaining("no state directory");
    }

    @Test
    void concurrentFirstStartsAndRotationsNeverLoseAKey() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<PassKeyRing>> starts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                starts.add(pool.submit(() -> PassKeyFile.loadOrCreate(state, random)));
            }
            PassKeyRing made = starts.get(0).get();
            for (Future<PassKeyRing> start : starts) {
                assertThat(start.get()).as("every start reads the one key made").isEqualTo(made);
            }
            List<Future<PassKeyRing>> rotations = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                rotations.add(pool.submit(() -> PassKeyFile.rotate(state, NOW, WEEK, random)));
            }
            List<PassKey> currents = new ArrayList<>();
            for (Future<PassKeyRing> rotation : rotations) {
                currents.add(rotation.get().current());
            }
            assertThat(currents).doesNotHaveDuplicates();
            PassKeyRing last = PassKeyFile.load(state);
            assertThat(currents).contains(last.current());
            assertThat(currents).contains(last.previous());
        } finally {
            pool.shutdownNow();
        }
    }
}
