package io.sluice.server.front;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The access log's writer when the disk fills up and frees again, and when it is re-opened. */
class AccessLogTest {
    private static final Instant START = Instant.parse("2026-11-25T10:00:00Z");

    private final Disk disk = new Disk();
    private final List<String> reports = new CopyOnWriteArrayList<>();
    private final Clock clock = new Clock();

    @Test
    void aFullDiskDropsAndCountsLinesReportsOnceAMinuteAndTheLogResumesWhenThereIsRoom() throws Exception {
        try (AccessLog log = new AccessLog(disk, "access.log", clock, reports::add)) {
            line(log, 1);
            await(() -> disk.text().lines().count() == 1, "the first line written");

            // Full after 10 more bytes: the next line is cut in the middle, the ones after it are not written.
            disk.roomLeft = 10;
            line(log, 2);
            await(() -> log.drops().writeFailed() == 1, "the cut line counted");
            line(log, 3);
            await(() -> log.drops().writeFailed() == 2, "the next line counted");
            assertThat(reports).as("one report in a minute").hasSize(1);
            assertThat(reports.get(0)).contains("access.log", "No space left on device", "1 lines dropped");

            clock.now = START.plus(AccessLog.REPORT_EVERY);
            line(log, 4);
            await(() -> log.drops().writeFailed() == 3, "a line a minute later counted");
            assertThat(reports).as("and one more a minute later").hasSize(2);

            disk.roomLeft = Long.MAX_VALUE;
            line(log, 5);
            await(() -> disk.text().contains("10.0.0.5 "), "the log written again once there is room");
            // The recovery is reported just after the write: by the same thread, but after the test saw the line.
            await(() -> reports.size() == 3, "the recovery reported");

            assertThat(disk.text().lines().toList()).as("every line after the cut starts on a line of its own")
                    .hasSize(3).satisfies(lines -> {
                        assertThat(lines.get(0)).startsWith("10.0.0.1 ").endsWith("sluice=ADMIT");
                        assertThat(lines.get(1)).isEqualTo("10.0.0.2 -");
                        assertThat(lines.get(2)).startsWith("10.0.0.5 ").endsWith("sluice=ADMIT");
                    });
            assertThat(log.drops()).isEqualTo(new AccessLog.Drops(0, 3));
            assertThat(reports.get(2)).contains("writing again", "3 lines dropped");
        }
    }

    @Test
    void aRealFullDeviceIsCountedAndTheWriterGoesOn() throws Exception {
        try (AccessLog log = AccessLog.open("/dev/full")) {
            for (int i = 1; i <= 5; i++) {
                line(log, i);
                int written = i;
                await(() -> log.drops().writeFailed() == written, "line " + i + " counted as dropped");
            }
        }
    }

    @Test
    void reopenedAfterARenameNewLinesGoToTheNewFileAndABadTargetChangesNothing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        Path rotated = dir.resolve("access.log.1");
        try (AccessLog log = AccessLog.open(file.toString())) {
            line(log, 1);
            await(() -> lines(file) == 1, "the first line written");
            Files.move(file, rotated); // logrotate

            Throwable refused = catchThrowable(() -> log.reopen(dir.resolve("no/such/dir/x.log").toString(),
                    AccessLog.Format.JSON));
            assertThat(refused).isInstanceOf(IOException.class);
            line(log, 2);
            await(() -> lines(rotated) == 2, "the second line in the renamed file, still NCSA");

            log.reopen(file.toString(), AccessLog.Format.JSON);
            line(log, 3);
            await(() -> lines(file) == 1, "the third line in a new file of the old name");
        }
        assertThat(Files.readAllLines(rotated)).allMatch(text -> text.endsWith("sluice=ADMIT"));
        assertThat(Files.readString(file)).startsWith("{\"time\":").contains("\"ip\":\"10.0.0.3\"");
    }

    private static long lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file).size() : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void line(AccessLog log, int n) {
        log.log("10.0.0." + n, START, "GET", "/page/" + n, "HTTP/1.1", 200, 512, null, "Mozilla/5.0", "ADMIT");
    }

    /** A disk with {@code roomLeft} bytes free: past them a write fails as a full disk does. */
    private static final class Disk implements WritableByteChannel {
        private final ByteArrayOutputStream written = new ByteArrayOutputStream();
        volatile long roomLeft = Long.MAX_VALUE;

        @Override
        public synchronized int write(ByteBuffer bytes) throws IOException {
            if (roomLeft == 0) {
                throw new IOException("No space left on device");
            }
            int n = (int) Math.min(bytes.remaining(), roomLeft);
            byte[] chunk = new byte[n];
            bytes.get(chunk);
            written.write(chunk, 0, n);
            roomLeft -= roomLeft == Long.MAX_VALUE ? 0 : n;
            return n;
        }

        synchronized String text() {
            return written.toString(StandardCharsets.UTF_8);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static final class Clock implements InstantSource {
        volatile Instant now = START;

        @Override
        public Instant instant() {
            return now;
        }
    }
}
