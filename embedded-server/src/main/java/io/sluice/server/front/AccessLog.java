package io.sluice.server.front;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * NCSA combined log lines with the decision appended ({@code sluice=ADMIT}, {@code sluice=REFUSE:HIT_STACK}), or
 * the same fields as one JSON object a line ({@link Format#JSON}, for log shippers). Whatever a client sends, a
 * request is one line that replay reads back as it was: in an NCSA line's quoted fields (the request line, the
 * referer, the user agent) {@code "} and {@code \} are escaped with a backslash, and control characters (C0, DEL, C1)
 * and the Unicode line and paragraph separators (U+2028, U+2029) as {@code \xHH}, one per byte of their UTF-8, as
 * nginx and Apache write them; in a JSON line as {@code \}{@code uXXXX}.
 * Lines are queued and written by one daemon thread, so a slow disk never slows the request path;
 * when the queue is full (by lines, or by the heap its lines take) a line is dropped and counted rather than
 * blocking a request.
 *
 * <p>A write that fails (the disk is full: {@code ENOSPC}; a closed pipe) drops the lines it did not finish, counts
 * them, and the writer goes on with the next lines, so the log starts again by itself once there is room; the server
 * is never held up by its log. The failures are reported at most once a {@link #REPORT_EVERY} (with the count so
 * far), and the recovery once. A line cut in the middle by a failure is ended before the next one, so every line
 * after it starts on a line of its own.
 *
 * <p>{@link #reopen} opens the file again by its name (after logrotate renamed it) or another one, and may change the
 * format: the writer thread takes the new file before its next batch, so no line is lost or written twice, and a
 * file that cannot be opened changes nothing (docs/manual/command-line.md, "Reload: SIGHUP").
 */
public final class AccessLog implements AutoCloseable {
    /** Least time between two reports of failed writes. */
    static final Duration REPORT_EVERY = Duration.ofMinutes(1);
    private static final DateTimeFormatter NCSA =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    /** Most lines written by one write: a batch lost to a failure is at most this many. */
    private static final int BATCH = 256;
    /** Most lines queued. */
    private static final int QUEUE_LINES = 65_536;
    /**
     * Most heap the queued lines may take, as {@link #heapBytes} counts it: while the disk stalls, lines of client
     * headers as long as the listener takes (tens of KB) would otherwise hold gigabytes at {@link #QUEUE_LINES}.
     */
    static final long QUEUE_BYTES = 32L << 20;

    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(QUEUE_LINES);
    /** The heap the queued lines take, by {@link #heapBytes}: at most {@link #queueBytes}. */
    private final AtomicLong queued = new AtomicLong();
    private final long queueBytes;
    /** A file {@link #reopen} opened, for the writer to take before its next batch; null when none waits. */
    private final AtomicReference<Opened> next = new AtomicReference<>();
    private volatile Format format;
    /** The target {@link #open} or the last {@link #reopen} was given: what {@link #reopen()} opens again. */
    private volatile String name;
    // Written by the writer thread only, once started.
    private WritableByteChannel out;
    private String target;
    private final InstantSource clock;
    private final Consumer<String> reports;
    private final Thread writer;
    private final AtomicLong queueFull = new AtomicLong();
    private final AtomicLong writeFailed = new AtomicLong();
    private volatile boolean open = true;
    // Written by the writer thread only.
    private boolean failing;
    private boolean tornTail;
    private Instant reported;

    /** Lines dropped since start, by why. */
    public record Drops(long queueFull, long writeFailed) {
    }

    /** How a line is written: {@code --access-log-format}. */
    public enum Format {
        /** NCSA combined, as nginx and Apache write it, with {@code sluice=DECISION} appended. */
        NCSA,
        /** One JSON object a line with the same fields (docs/manual/command-line.md, "Access log"). */
        JSON;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private record Opened(WritableByteChannel channel, String target) {
    }

    AccessLog(WritableByteChannel out, String target, InstantSource clock, Consumer<String> reports) {
        this(out, target, Format.NCSA, clock, reports);
    }

    AccessLog(WritableByteChannel out, String target, Format format, InstantSource clock, Consumer<String> reports) {
        this(out, target, format, clock, reports, QUEUE_BYTES);
    }

    AccessLog(WritableByteChannel out, String target, Format format, InstantSource clock, Consumer<String> reports,
              long queueBytes) {
        this.queueBytes = queueBytes;
        this.out = out;
        this.target = target;
        this.format = format;
        this.clock = clock;
        this.reports = reports;
        this.writer = new Thread(this::drain, "sluice-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    /** {@code "-"} for standard output, else a file appended to; NCSA lines. */
    public static AccessLog open(String target) throws IOException {
        return open(target, Format.NCSA);
    }

    /** {@code "-"} for standard output, else a file appended to. */
    public static AccessLog open(String target, Format format) throws IOException {
        System.Logger logger = System.getLogger(AccessLog.class.getName());
        Consumer<String> reports = message -> logger.log(System.Logger.Level.WARNING, message);
        Opened opened = channel(target);
        AccessLog log = new AccessLog(opened.channel(), opened.target(), format, InstantSource.system(), reports);
        log.name = target;
        return log;
    }

    /**
     * Opens the log again by the name and in the format it has now: after logrotate renamed the file, whatever else a
     * reload decides. Throws, changing nothing, when the file cannot be opened.
     */
    public void reopen() throws IOException {
        String current = name;
        if (current == null) {
            throw new IOException("this access log was not opened by a name");
        }
        reopen(current, format);
    }

    /** What {@link #reopen()} opens: a file's name, or {@code -} for standard output; null when not opened by name. */
    public String name() {
        return name;
    }

    /**
     * Opens {@code target} afresh (the same name after a rotation, or another) and writes the lines logged from now
     * on in {@code format}. Throws, changing nothing, when the file cannot be opened.
     */
    public void reopen(String target, Format format) throws IOException {
        Opened opened = channel(target);
        Opened unused = next.getAndSet(opened);
        if (unused != null) {
            closeQuietly(unused.channel(), unused.target());
        }
        this.format = format;
        this.name = target;
    }

    private static Opened channel(String target) throws IOException {
        if ("-".equals(target)) {
            // The descriptor itself, not System.out: a PrintStream hides write errors, and they must be counted.
            // Closing the log leaves standard output open.
            FileChannel stdout = new FileOutputStream(FileDescriptor.out).getChannel();
            WritableByteChannel unclosed = new WritableByteChannel() {
                @Override
                public int write(ByteBuffer bytes) throws IOException {
                    return stdout.write(bytes);
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {
                    // Standard output is the process's, not the log's.
                }
            };
            return new Opened(unclosed, "standard output");
        }
        return new Opened(FileChannel.open(Path.of(target), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND), target);
    }

    void log(String ip, Instant at, String method, String target, String protocol, int status, long bytes,
             String referer, String userAgent, String decision) {
        String line = format == Format.JSON
                ? JsonLine.of(ip, at, method, target, protocol, status, bytes, referer, userAgent, decision)
                : ncsa(ip, at, method, target, protocol, status, bytes, referer, userAgent, decision);
        long size = heapBytes(line);
        if (queued.addAndGet(size) > queueBytes || !lines.offer(line)) {
            queued.addAndGet(-size);
            queueFull.incrementAndGet();
        }
    }

    private static String ncsa(String ip, Instant at, String method, String target, String protocol, int status,
                               long bytes, String referer, String userAgent, String decision) {
        StringBuilder line = new StringBuilder(160 + target.length() + (userAgent == null ? 0 : userAgent.length()));
        line.append(ip).append(" - - [").append(NCSA.format(at)).append("] \"");
        escape(line, method).append(' ');
        escape(line, target).append(' ');
        escape(line, protocol).append("\" ").append(status).append(' ').append(bytes < 0 ? "-" : Long.toString(bytes));
        quoted(line.append(' '), referer).append(' ');
        quoted(line, userAgent).append(" sluice=").append(decision);
        return line.toString();
    }

    /** At most the heap {@code line} takes: two bytes a character (a string that is not Latin-1) and its headers. */
    static long heapBytes(String line) {
        return 2L * line.length() + 56;
    }

    /** Lines dropped since start: the queue was full, or writing them failed. */
    public Drops drops() {
        return new Drops(queueFull.get(), writeFailed.get());
    }

    /** A header's value in quotes, escaped; {@code "-"} when it is absent or empty. */
    private static StringBuilder quoted(StringBuilder line, String value) {
        line.append('"');
        if (value == null || value.isEmpty()) {
            line.append('-');
        } else {
            escape(line, value);
        }
        return line.append('"');
    }

    /**
     * Appends {@code value} as a quoted NCSA field holds it: {@code "} and {@code \} after a backslash; a character
     * that would end the line for some reader (C0 and C1 controls, DEL, U+2028, U+2029) as {@code \xHH} per byte of
     * its UTF-8, as nginx writes a byte it escapes, which replay (the engine's CombinedLogParser) turns back into it.
     */
    static StringBuilder escape(StringBuilder line, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                line.append('\\').append(c);
            } else if (c < 0x20 || c >= 0x7f && c <= 0x9f) {
                if (c >= 0x80) {
                    hexByte(line, 0xc2); // UTF-8 of U+0080..U+00BF: C2, then the character itself
                }
                hexByte(line, c);
            } else if (c == 0x2028 || c == 0x2029) {
                hexByte(line, 0xe2); // UTF-8 of U+2028: E2 80 A8; of U+2029: E2 80 A9
                hexByte(line, 0x80);
                hexByte(line, 0x80 | c & 0x3f);
            } else {
                line.append(c);
            }
        }
        return line;
    }

    private static void hexByte(StringBuilder line, int b) {
        line.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xf, 16));
    }

    private void drain() {
        List<String> batch = new ArrayList<>(BATCH);
        while (open || !lines.isEmpty()) {
            try {
                String first = lines.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                lines.drainTo(batch, BATCH - 1);
                // After the wait: a line logged after a reopen goes to the new file.
                takeReopened();
                write(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // Whatever else goes wrong with one batch, the next is written: the log must outlive it.
                dropped(batch.size(), e);
            }
            // Counted out once written (or dropped): until then the batch is still on the heap.
            long size = 0;
            for (String line : batch) {
                size += heapBytes(line);
            }
            queued.addAndGet(-size);
            batch.clear();
        }
    }

    /** Writes to the file {@link #reopen} opened, if one waits, from the next batch on. */
    private void takeReopened() {
        Opened opened = next.getAndSet(null);
        if (opened == null) {
            return;
        }
        closeQuietly(out, target);
        out = opened.channel();
        target = opened.target();
        // A line cut by a failure was cut in the old file; the new one starts clean.
        tornTail = false;
    }

    private void closeQuietly(WritableByteChannel channel, String name) {
        try {
            channel.close();
        } catch (IOException e) {
            reports.accept("access log " + name + ": " + e.getMessage());
        }
    }

    /** Writes the batch; on a failure counts the lines whose end did not reach the log. */
    private void write(List<String> batch) {
        StringBuilder text = new StringBuilder(batch.size() * 160 + 1);
        boolean endsCut = tornTail;
        if (endsCut) {
            text.append('\n');
        }
        for (String line : batch) {
            text.append(line).append('\n');
        }
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        try {
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            tornTail = false;
            if (failing) {
                failing = false;
                reports.accept("access log " + target + ": writing again; " + writeFailed.get()
                        + " lines dropped since start");
            }
        } catch (IOException e) {
            int ended = 0;
            for (int i = 0; i < bytes.position(); i++) {
                ended += bytes.get(i) == '\n' ? 1 : 0;
            }
            if (endsCut && bytes.position() > 0) {
                ended--;
            }
            if (bytes.position() > 0) {
                tornTail = bytes.get(bytes.position() - 1) != '\n';
            }
            dropped(batch.size() - ended, e);
        }
    }

    private void dropped(int count, Exception cause) {
        long total = writeFailed.addAndGet(count);
        Instant now = clock.instant();
        if (!failing || reported == null || !now.isBefore(reported.plus(REPORT_EVERY))) {
            reported = now;
            reports.accept("access log " + target + ": cannot write (" + cause.getMessage() + "); " + total
                    + " lines dropped since start; the server goes on and the log resumes when it can be written");
        }
        failing = true;
    }

    @Override
    public void close() {
        open = false;
        try {
            writer.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Opened unused = next.getAndSet(null);
        if (unused != null) {
            closeQuietly(unused.channel(), unused.target());
        }
        closeQuietly(out, target);
    }
}
