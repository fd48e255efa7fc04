package io.sluice.server.state;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.sluice.engine.policy.PolicyJson;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log on real files: rotation by size, pages across files, torn lines repaired. */
class AuditLogTest {
    @TempDir
    Path dir;

    private static AuditEntry entry(int i) {
        return new AuditEntry(Instant.parse("2026-11-22T10:00:00Z").plusSeconds(i), "ops", "pause",
                "entry " + i + " " + "x".repeat(200), null, null);
    }

    @Test
    void itRotatesBySizeKeepsNFilesAndPagesAcrossThemNewestFirst() throws Exception {
        AuditLog log = new AuditLog(dir.resolve("audit.log"), 2048, 2);
        for (int i = 1; i <= 40; i++) {
            log.append(entry(i));
        }

        assertThat(dir.resolve("audit.log.1")).exists();
        assertThat(dir.resolve("audit.log.2")).exists();
        assertThat(dir.resolve("audit.log.3")).doesNotExist();
        assertThat(Files.size(dir.resolve("audit.log"))).isLessThanOrEqualTo(2048);

        List<Long> seen = new ArrayList<>();
        long before = Long.MAX_VALUE;
        while (true) {
            List<AuditEntry> page = log.page(4, before);
            if (page.isEmpty()) {
                break;
            }
            page.forEach(e -> seen.add(e.seq()));
            before = page.get(page.size() - 1).seq();
        }
        assertThat(seen.get(0)).isEqualTo(40);
        long oldestKept = seen.get(seen.size() - 1);
        assertThat(oldestKept).isGreaterThan(1);
        assertThat(seen).containsExactlyElementsOf(LongStream.rangeClosed(oldestKept, 40).map(s -> 40 - s
                + oldestKept).boxed().toList());
    }

    @Test
    void aTornLastLineIsCutBeforeTheNextAppend() throws Exception {
        Path file = dir.resolve("audit.log");
        AuditLog log = new AuditLog(file, AuditLog.DEFAULT_MAX_BYTES, 3);
        log.append(entry(1));
        // What a failed write (disk full, crash) leaves: half a line, no newline.
        Files.writeString(file, "{\"seq\":2,\"at\":\"2026-11-", StandardOpenOption.APPEND);

        assertThat(log.newestFirst(10)).extracting(AuditEntry::seq).as("a reader skips the unfinished line")
                .containsExactly(1L);
        log.append(entry(3));

        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(2);
        for (String line : lines) {
            PolicyJson.mapper().readTree(line);
        }
        assertThat(log.newestFirst(10)).extracting(AuditEntry::detail).allMatch(d -> d.startsWith("entry"));
    }

    @Test
    void aLogFromBeforeSequenceNumbersIsNumberedOnce() throws Exception {
        Path file = dir.resolve("audit.log");
        Files.writeString(file, """
                {"at":"2026-11-22T10:00:00Z","who":"admin","action":"pause","detail":"a","before":null,"after":null}
                {"at":"2026-11-22T10:00:01Z","who":"admin","action":"resume","detail":"b","before":null,"after":null}
                """);

        AuditLog log = new AuditLog(file, AuditLog.DEFAULT_MAX_BYTES, 3);
        AuditEntry next = log.append(entry(3));

        assertThat(next.seq()).isEqualTo(3);
        assertThat(log.newestFirst(10)).extracting(AuditEntry::seq).containsExactly(3L, 2L, 1L);
    }

    @Test
    void aPageOfALargeLogCostsThePageNotTheLog() throws Exception {
        // Four files of 6 MB: 400 entries of a 60 KB policy each.
        int total = LargeAudit.write(dir, 4, 100, 60_000);
        AuditLog log = new AuditLog(dir.resolve("audit.log"), 8L << 20, 10);

        long[] newest = new long[1];
        long newestBytes = allocatedBy(() -> newest[0] = log.page(1000, Long.MAX_VALUE, 4 << 20).entries().size());
        long[] deep = new long[1];
        long deepBytes = allocatedBy(() -> deep[0] = log.page(10, 50, 4 << 20).entries().get(0).seq());

        assertThat(newestBytes).as("bytes allocated for the newest page").isLessThan(24L << 20);
        assertThat(newest[0]).as("a page stops at its size").isBetween(60L, 70L);
        assertThat(deep[0]).isEqualTo(49);
        assertThat(deepBytes).as("bytes allocated for a page in the oldest file").isLessThan(24L << 20);

        List<Long> seen = new ArrayList<>();
        long before = Long.MAX_VALUE;
        for (AuditLog.Page page = log.page(1000, before, 4 << 20); ; page = log.page(1000, before, 4 << 20)) {
            page.entries().forEach(e -> seen.add(e.seq()));
            if (!page.more()) {
                break;
            }
            before = page.entries().get(page.entries().size() - 1).seq();
        }
        assertThat(seen).as("the pages together: every entry once, newest first")
                .containsExactlyElementsOf(LongStream.iterate(total, s -> s >= 1, s -> s - 1).boxed().toList());
    }

    /** Bytes the current thread allocates running {@code action}. */
    private static long allocatedBy(Runnable action) {
        ThreadMXBean threads =
                (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadAllocatedBytes();
        action.run();
        return threads.getCurrentThreadAllocatedBytes() - start;
    }
}
