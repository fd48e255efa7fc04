package io.sluice.server.state;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Append-only JSON lines, fsynced per entry. A torn last line (a crash in the middle of a write) is cut
 * off when the log is opened, so the next entry starts on a line of its own; a corrupt line anywhere
 * else is reported, not skipped, because it means the file was damaged by something other than a crash.
 */
public final class AuditLog {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private final Path file;
    private final List<AuditEntry> entries = new ArrayList<>();

    AuditLog(Path file) {
        this.file = file;
        load();
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        try {
            byte[] bytes = Files.readAllBytes(file);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] != '\n') {
                end--;
            }
            if (end < bytes.length) {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    channel.truncate(end);
                    channel.force(true);
                }
            }
            String[] lines = new String(bytes, 0, end, StandardCharsets.UTF_8).split("\n");
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].isBlank()) {
                    continue;
                }
                try {
                    entries.add(JSON.readValue(lines[i], AuditEntry.class));
                } catch (IOException e) {
                    throw new StateException("corrupt audit log " + file + " at line " + (i + 1) + ": "
                            + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new StateException("cannot read audit log " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes the entry durably before returning. */
    public synchronized void append(AuditEntry entry) throws IOException {
        byte[] line = (JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer buffer = ByteBuffer.wrap(line);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        }
        entries.add(entry);
    }

    /** The newest {@code limit} entries, newest first. */
    public synchronized List<AuditEntry> newestFirst(int limit) {
        List<AuditEntry> newest = new ArrayList<>(entries.subList(Math.max(0, entries.size() - limit),
                entries.size()));
        Collections.reverse(newest);
        return newest;
    }
}
