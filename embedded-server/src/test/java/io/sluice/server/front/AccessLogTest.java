package io.sluice.server.front;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sluice.engine.whatif.ReplayedLines;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log's writer: what a client sends stays one line that replay reads back; the disk fills up and frees
 * again, or stalls; the log is re-opened.
 */
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

    @Test
    void everyRequestIsOneLineThatReplayReadsBackAsItWasInBothFormats(@TempDir Path dir) throws Exception {
        // What a client can put in a request: a quote and a backslash in the query, controls (C0, DEL, C1: NEL and
        // CSI) and the Unicode line and paragraph separators in its headers.
        String target = "/search?q=\"a\"\\x41&to=\u0085\u2028";
        String agent = "Mozilla/5.0 \"quoted\" back\\slash \r\n\tbell\u0007 del\u007f nel\u0085 csi\u009b "
                + "ls\u2028 ps\u2029 caf\u00e9 \u2713";
        String referer = "https://example.com/?\"\u2028";
        for (AccessLog.Format format : AccessLog.Format.values()) {
            Path file = dir.resolve("access-" + format + ".log");
            try (AccessLog log = AccessLog.open(file.toString(), format)) {
                log.log("203.0.113.7", START, "GET", target, "HTTP/1.1", 200, 512, referer, agent, "ADMIT");
                log.log("203.0.113.8", START, "GET", "/next", "HTTP/1.1", 503, 0, null, "curl/8",
                        "REFUSE:HIT_STACK");
            }

            String text = Files.readString(file);
            assertThat(text.chars().filter(c -> c == '\n').count()).as(format + ": one line a request").isEqualTo(2);
            assertThat(text).as(format + ": nothing else a reader may take for a line's end").doesNotContain("\r",
                    "\u000b", "\f", "\u001c", "\u001d", "\u001e", "\u0085", "\u2028", "\u2029");
            assertThat(ReplayedLines.read(file)).as(format + ": replay reads each request back as it was")
                    .containsExactly(
                            new ReplayedLines.Request("203.0.113.7", "GET", "/search", "q=\"a\"\\x41&to=\u0085\u2028",
                                    agent, "ADMIT"),
                            new ReplayedLines.Request("203.0.113.8", "GET", "/next", null, "curl/8",
                                    "REFUSE:HIT_STACK"));
        }
    }

    @Test
    void aStalledDiskHoldsNoMoreThanTheQueuesBytesAndTheRestIsDroppedAndCounted() throws Exception {
        StalledDisk stalled = new StalledDisk();
        String agent = "a".repeat(64 * 1024); // as long a header as a listener may take
        int logged = 1_000;
        try (AccessLog log = new AccessLog(stalled, "access.log", clock, reports::add)) {
            for (int i = 0; i < logged; i++) {
                log.log("10.0.0.1", START, "GET", "/" + i, "HTTP/1.1", 200, 512, null, agent, "ADMIT");
            }
            long dropped = log.drops().queueFull();
            long kept = logged - dropped;
            long lineBytes = AccessLog.heapBytes("10.0.0.1 - - [25/Nov/2026:10:00:00 +0000] \"GET /999 HTTP/1.1\" "
                    + "200 512 \"-\" \"" + agent + "\" sluice=ADMIT");
            assertThat(dropped).as("lines dropped while the disk stalls, counted").isPositive();
            assertThat(kept * lineBytes).as("the heap the kept lines hold").isLessThanOrEqualTo(AccessLog.QUEUE_BYTES);
            assertThat((kept + 1) * lineBytes).as("the queue fills before it drops").isGreaterThan(
                    AccessLog.QUEUE_BYTES);

            stalled.release();
            await(() -> stalled.lines() == kept, "the kept lines written once the disk answers");
            log.log("10.0.0.2", START, "GET", "/after", "HTTP/1.1", 200, 512, null, "curl/8", "ADMIT");
            await(() -> stalled.lines() == kept + 1, "a line logged after the stall written too");
            assertThat(log.drops()).isEqualTo(new AccessLog.Drops(dropped, 0));
        }
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

    /** A disk that takes nothing until released, as one stalls: every write waits. */
    private static final class StalledDisk implements WritableByteChannel {
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicLong newlines = new AtomicLong();

        @Override
        public int write(ByteBuffer bytes) throws IOException {
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("stalled");
            }
            int n = bytes.remaining();
            while (bytes.hasRemaining()) {
                newlines.addAndGet(bytes.get() == '\n' ? 1 : 0);
            }
            return n;
        }

        void release() {
            released.countDown();
        }

        long lines() {
            return newlines.get();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
            released.countDown();
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
