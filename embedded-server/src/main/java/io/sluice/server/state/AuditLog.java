package io.sluice.server.state;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.engine.policy.PolicyJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Append-only JSON lines, fsynced per entry, rotated by size: {@code audit.log} is the file written to,
 * {@code audit.log.1} the one before it, up to {@code audit.log.N}; the oldest beyond N is deleted. Nothing
 * is held in memory: a page is read backwards from the end of the newest file, across older files as
 * needed, so a page costs the entries it returns, not the size of the log.
 *
 * <p>A torn last line (a crash or a failed write in the middle of an append) is cut off before the next
 * append and when the log is opened, so every entry starts on a line of its own; a corrupt line anywhere
 * else in the file being written is reported at open, not skipped, because it means the file was damaged
 * by something other than a crash.
 *
 * <p>The server and a command ({@code sluice-server token revoke}) may append at the same time: an append holds a
 * file lock ({@code audit.lock}), and takes its numbers after the newest entry on disk whenever the file changed
 * since this process last wrote it, so the two never give one number twice. A command never rotates the log (the
 * server does, at its next append past the size).
 */
public final class AuditLog {
    /** Default size at which the log rotates. */
    public static final long DEFAULT_MAX_BYTES = 10L << 20;
    /** Default number of rotated files kept besides the one being written. */
    public static final int DEFAULT_KEEP = 10;
    private static final ObjectMapper JSON = PolicyJson.mapper();
    /** Entries written before {@code seq} existed have none: they read as 0 and are numbered at open. */
    private static final ObjectReader ENTRY = JSON.readerFor(AuditEntry.class)
            .without(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    private static final int BLOCK = 64 * 1024;
    private static final String LOCK = "audit.lock";
    /** One lock for every audit log of this JVM: a file lock is held per process, not per channel. */
    private static final Object JVM_LOCK = new Object();

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private final StateOwner owner;
    private long nextSeq;
    /** The file as this process left it after its last append, or null: compared before the next one. */
    private Object written;

    AuditLog(Path file, long maxBytes, int keep) {
        this(file, maxBytes, keep, StateOwner.PROCESS);
        try {
            locked(() -> {
                repairTornTail(file);
                nextSeq = checkAndNumber() + 1;
                written = stamp();
            });
        } catch (IOException e) {
            throw new StateException("cannot read audit log " + file + ": " + e.getMessage(), e);
        }
    }

    private AuditLog(Path file, long maxBytes, int keep, StateOwner owner) {
        if (maxBytes < 1024 || keep < 1) {
            throw new IllegalArgumentException("the audit log rotates at 1 KiB or more and keeps at least one file");
        }
        this.file = file;
        this.maxBytes = maxBytes;
        this.keep = keep;
        this.owner = owner;
    }

    /**
     * The audit log of the state directory {@code dir} for a command that appends to it beside a running server,
     * writing as {@code owner}: nothing is read until the first append, and it never rotates.
     */
    public static AuditLog forCommand(Path dir, StateOwner owner) {
        return new AuditLog(dir.resolve(StateDirectory.AUDIT), Long.MAX_VALUE, DEFAULT_KEEP, owner);
    }

    /**
     * Parses every line of the file being written (one line at a time); numbers the entries of a log
     * written before entries had a {@code seq}. Returns the last {@code seq} in the log, 0 for none.
     */
    private long checkAndNumber() throws IOException {
        long last = 0;
        boolean unnumbered = false;
        if (Files.exists(file)) {
            try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                int number = 0;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    number++;
                    if (line.isBlank()) {
                        continue;
                    }
                    AuditEntry entry = parse(line, file, number);
                    unnumbered |= entry.seq() == 0;
                    last = Math.max(last, entry.seq());
                }
            }
        }
        if (unnumbered) {
            return number();
        }
        if (last == 0) {
            for (Path older : rotated()) {
                AuditEntry newest = newestIn(older);
                if (newest != null) {
                    return newest.seq();
                }
            }
        }
        return last;
    }

    /** A log from before {@code seq} existed (never rotated): rewrites it once with entries numbered from 1. */
    private long number() throws IOException {
        StringBuilder numbered = new StringBuilder();
        long seq = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                seq++;
                numbered.append(JSON.writeValueAsString(ENTRY.<AuditEntry>readValue(line).withSeq(seq)))
                        .append('\n');
            }
        }
        AtomicFiles.write(file, numbered.toString().getBytes(StandardCharsets.UTF_8), owner);
        return seq;
    }

    /** Writes the entry durably (rotating first if the file is full) and returns it with its {@code seq}. */
    public synchronized AuditEntry append(AuditEntry entry) throws IOException {
        return appendAll(List.of(entry)).get(0);
    }

    /**
     * Writes {@code entries} durably with one fsync (rotating first if the file is full), for a batch of automatic
     * bans: a storm of them costs one sync per batch, not one per ban. Returns them with their {@code seq}.
     */
    public synchronized List<AuditEntry> appendAll(List<AuditEntry> entries) throws IOException {
        if (entries.isEmpty()) {
            return List.of();
        }
        List<List<AuditEntry>> appended = new ArrayList<>(1);
        locked(() -> appended.add(appendLocked(entries)));
        return appended.get(0);
    }

    /** {@link #appendAll} under the file lock: numbered after whatever another process appended meanwhile. */
    private List<AuditEntry> appendLocked(List<AuditEntry> entries) throws IOException {
        repairTornTail(file);
        if (written == null || !written.equals(stamp())) {
            nextSeq = Math.max(nextSeq, newestSeqOnDisk() + 1);
        }
        List<AuditEntry> numbered = new ArrayList<>(entries.size());
        StringBuilder lines = new StringBuilder();
        for (AuditEntry entry : entries) {
            AuditEntry withSeq = entry.withSeq(nextSeq + numbered.size());
            numbered.add(withSeq);
            lines.append(JSON.writeValueAsString(withSeq)).append('\n');
        }
        byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
        if (Files.exists(file) && Files.size(file) > 0 && Files.size(file) + bytes.length > maxBytes) {
            rotate();
        }
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND, LinkOption.NOFOLLOW_LINKS), AtomicFiles.ownerOnly())) {
            owner.adopt(file);
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(false);
        }
        nextSeq += numbered.size();
        written = stamp();
        return numbered;
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** Runs {@code action} holding {@code audit.lock}, against every other process appending to this log. */
    private void locked(IoAction action) throws IOException {
        Path lockFile = file.resolveSibling(LOCK);
        synchronized (JVM_LOCK) {
            try (FileChannel channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), AtomicFiles.ownerOnly())) {
                owner.adopt(lockFile);
                FileLock lock = channel.lock();
                try {
                    action.run();
                } finally {
                    lock.release();
                }
            }
        }
    }

    /** What identifies the file being written as it is now: its file key and size ("absent" if there is none). */
    private Object stamp() throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            return List.of(String.valueOf(attributes.fileKey()), attributes.size());
        } catch (NoSuchFileException e) {
            return "absent";
        }
    }

    /** The {@code seq} of the newest entry in the log's files, 0 for none. */
    private long newestSeqOnDisk() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(file);
        files.addAll(rotated());
        for (Path each : files) {
            try {
                AuditEntry newest = newestIn(each);
                if (newest != null) {
                    return newest.seq();
                }
            } catch (NoSuchFileException e) {
                // none yet
            }
        }
        return 0;
    }

    /** audit.log.(keep) is dropped, every other file moves one place older, audit.log becomes audit.log.1. */
    private void rotate() throws IOException {
        Files.deleteIfExists(rotatedFile(keep));
        for (int i = keep - 1; i >= 1; i--) {
            if (Files.exists(rotatedFile(i), LinkOption.NOFOLLOW_LINKS)) {
                Files.move(rotatedFile(i), rotatedFile(i + 1), StandardCopyOption.ATOMIC_MOVE);
            }
        }
        Files.move(file, rotatedFile(1), StandardCopyOption.ATOMIC_MOVE);
        AtomicFiles.syncDirectory(file.toAbsolutePath().getParent());
    }

    private Path rotatedFile(int index) {
        return file.resolveSibling(file.getFileName() + "." + index);
    }

    /** The rotated files, newest first. */
    private List<Path> rotated() {
        List<Path> files = new ArrayList<>();
        for (int i = 1; i <= keep; i++) {
            if (Files.exists(rotatedFile(i))) {
                files.add(rotatedFile(i));
            }
        }
        return files;
    }

    /** The newest {@code limit} entries, newest first. */
    public List<AuditEntry> newestFirst(int limit) {
        return page(limit, Long.MAX_VALUE);
    }

    /** Up to {@code limit} entries older than {@code beforeSeq}, newest first, across rotated files. */
    public List<AuditEntry> page(int limit, long beforeSeq) {
        return page(limit, beforeSeq, Long.MAX_VALUE).entries();
    }

    /**
     * One page of the log, newest first.
     *
     * @param entries the entries, newest first
     * @param more    true when older entries remain past the page (it was cut by its limit or its size)
     */
    public record Page(List<AuditEntry> entries, boolean more) {
    }

    /**
     * Up to {@code limit} entries older than {@code beforeSeq}, newest first, across rotated files, and no more
     * than {@code maxChars} characters of entries (but at least one entry): an entry holds a policy before and
     * after, so a page of a thousand can be a gigabyte. What it costs is the page, not the log: files read from
     * their end a block at a time, a file whose oldest entry is not older than {@code beforeSeq} skipped without
     * reading it, and a newer entry in the file {@code beforeSeq} falls in read for its {@code seq} alone.
     */
    public Page page(int limit, long beforeSeq, long maxChars) {
        List<AuditEntry> page = new ArrayList<>(Math.min(limit, 1000));
        List<Path> files = new ArrayList<>();
        synchronized (this) {
            files.add(file);
            files.addAll(rotated());
        }
        long[] chars = {0};
        boolean[] more = {false};
        for (Path each : files) {
            if (more[0]) {
                break;
            }
            try {
                if (beforeSeq != Long.MAX_VALUE && oldestSeq(each) >= beforeSeq) {
                    continue;
                }
                readBackward(each, line -> {
                    if (page.size() >= limit || (!page.isEmpty() && chars[0] + line.length() > maxChars)) {
                        more[0] = true;
                        return false;
                    }
                    if (seqOf(line, each) < beforeSeq) {
                        page.add(parse(line, each, -1));
                        chars[0] += line.length();
                    }
                    return true;
                });
            } catch (NoSuchFileException e) {
                // Rotated away between listing and reading: its entries are in the next file.
            } catch (IOException e) {
                throw new StateException("cannot read audit log " + each + ": " + e.getMessage(), e);
            }
        }
        return new Page(page, more[0]);
    }

    /**
     * The {@code seq} of a file's first (oldest) entry, read from the start of its first line; 0 for none or for a
     * first line still being written (then the file is read, not skipped).
     */
    private static long oldestSeq(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS);
             JsonParser parser = JSON.getFactory().createParser(in)) {
            return seqOf(parser);
        } catch (JsonProcessingException e) {
            return 0;
        }
    }

    /** An entry's {@code seq} without reading the rest of it (written first, so it is the first field). */
    private static long seqOf(String line, Path path) {
        try (JsonParser parser = JSON.getFactory().createParser(line)) {
            return seqOf(parser);
        } catch (IOException e) {
            throw new StateException("corrupt audit log " + path + ": " + e.getMessage(), e);
        }
    }

    private static long seqOf(JsonParser parser) throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            return 0;
        }
        for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
            String name = parser.currentName();
            parser.nextToken();
            if ("seq".equals(name)) {
                return parser.getValueAsLong();
            }
            parser.skipChildren();
        }
        return 0;
    }

    private static AuditEntry newestIn(Path path) throws IOException {
        AuditEntry[] newest = new AuditEntry[1];
        readBackward(path, line -> {
            newest[0] = parse(line, path, -1);
            return false;
        });
        return newest[0];
    }

    private static AuditEntry parse(String line, Path path, int number) {
        try {
            return ENTRY.readValue(line);
        } catch (IOException e) {
            throw new StateException("corrupt audit log " + path + (number > 0 ? " at line " + number : "") + ": "
                    + e.getMessage(), e);
        }
    }

    /** Feeds the complete lines of {@code path} to {@code line}, last first, until it returns false. */
    private static void readBackward(Path path, Predicate<String> line) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long position = channel.size();
            byte[] carry = new byte[0];
            // What follows the last newline is not a line yet: an append in progress, or a torn one.
            boolean tail = true;
            while (position > 0) {
                int length = (int) Math.min(BLOCK, position);
                position -= length;
                ByteBuffer block = ByteBuffer.allocate(length + carry.length);
                // Read this block's bytes only: the room after them is the carry's, which follows them in the file.
                block.limit(length);
                while (block.hasRemaining()) {
                    if (channel.read(block, position + block.position()) < 0) {
                        throw new IOException("the file shrank while being read");
                    }
                }
                block.limit(block.capacity());
                block.put(carry);
                byte[] bytes = block.array();
                int end = bytes.length;
                for (int i = end - 1; i >= 0; i--) {
                    if (bytes[i] == '\n') {
                        if (!tail && i + 1 < end && !emit(bytes, i + 1, end, line)) {
                            return;
                        }
                        tail = false;
                        end = i;
                    }
                }
                carry = Arrays.copyOf(bytes, end);
            }
            if (!tail && carry.length > 0) {
                emit(carry, 0, carry.length, line);
            }
        }
    }

    private static boolean emit(byte[] bytes, int from, int to, Predicate<String> line) {
        String text = new String(bytes, from, to - from, StandardCharsets.UTF_8);
        return text.isBlank() || line.test(text);
    }

    /** Cuts off an incomplete last line, so the next entry starts on a line of its own. */
    private static void repairTornTail(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            long size = channel.size();
            long end = size;
            ByteBuffer one = ByteBuffer.allocate(1);
            while (end > 0) {
                one.clear();
                channel.read(one, end - 1);
                if (one.get(0) == '\n') {
                    break;
                }
                end--;
            }
            if (end < size) {
                channel.truncate(end);
                channel.force(true);
            }
        }
    }
}
