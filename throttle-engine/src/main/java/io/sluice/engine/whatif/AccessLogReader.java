package io.sluice.engine.whatif;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Reads one access log line by line into {@link LogEntry}s, gzip or plain (told apart by the file's first
 * bytes, not its name), NCSA combined or Sluice's JSON lines (told apart line by line: a log re-formatted by a
 * reload holds both). Lines are split in a large byte buffer and parsed in place; nothing is decoded
 * but the fields kept.
 */
final class AccessLogReader implements Closeable {
    private static final int BUFFER = 1 << 20;

    private final Counting raw;
    private final InputStream in;
    private final CombinedLogParser parser = new CombinedLogParser();
    private final JsonLogParser json = new JsonLogParser();
    private final byte[] buffer = new byte[BUFFER];
    /** The line being read is longer than the buffer: it will be skipped. */
    private boolean overlong;
    private int start;
    private int limit;
    private boolean eof;
    private long lines;
    private long skipped;
    private long firstSkippedLine;

    AccessLogReader(Path file) throws IOException {
        InputStream base = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        this.raw = new Counting(base);
        base.mark(2);
        int b1 = base.read();
        int b2 = base.read();
        base.reset();
        boolean gzip = b1 == 0x1f && b2 == 0x8b;
        this.in = gzip ? new GZIPInputStream(raw, 1 << 16) : raw;
    }

    /** The next request, or null at the end of the file. Lines that are not requests are counted and skipped. */
    LogEntry next() throws IOException {
        while (true) {
            int newline = find();
            if (newline < 0) {
                return null;
            }
            int end = newline;
            int lineStart = start;
            start = newline + 1;
            if (end > lineStart && buffer[end - 1] == '\r') {
                end--;
            }
            if (end == lineStart && !overlong) {
                continue; // blank line
            }
            lines++;
            LogEntry entry = overlong ? null : buffer[lineStart] == '{' ? json.parse(buffer, lineStart, end)
                    : parser.parse(buffer, lineStart, end);
            overlong = false;
            if (entry != null) {
                return entry;
            }
            if (skipped++ == 0) {
                firstSkippedLine = lines;
            }
        }
    }

    /**
     * The end of the next line (the index of its newline, or of the end of the data for a last line without
     * one), reading more as needed; -1 at the end of the file. A line longer than the buffer is not kept: its
     * start is dropped and {@link #overlong} set, so it is counted as skipped.
     */
    private int find() throws IOException {
        int scanned = 0;
        while (true) {
            for (int i = start + scanned; i < limit; i++) {
                if (buffer[i] == '\n') {
                    return i;
                }
            }
            scanned = limit - start;
            if (eof) {
                if (start < limit) {
                    if (limit == buffer.length) {
                        overlong = true;
                        start = limit = 0;
                    }
                    buffer[limit++] = '\n'; // a last line without a newline
                    return limit - 1;
                }
                return -1;
            }
            if (limit == buffer.length) {
                if (start > 0) {
                    System.arraycopy(buffer, start, buffer, 0, limit - start);
                    limit -= start;
                    start = 0;
                } else {
                    overlong = true; // one line fills the buffer: no request line is that long
                    limit = 0;
                    scanned = 0;
                }
            }
            int read = in.read(buffer, limit, buffer.length - limit);
            if (read < 0) {
                eof = true;
            } else {
                limit += read;
            }
        }
    }

    long lines() {
        return lines;
    }

    long skipped() {
        return skipped;
    }

    /** The line number of the first line skipped, or 0. */
    long firstSkippedLine() {
        return firstSkippedLine;
    }

    /** Bytes of the file read so far (compressed bytes for a gzip file): for progress against its size. */
    long bytesRead() {
        return raw.count;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}
