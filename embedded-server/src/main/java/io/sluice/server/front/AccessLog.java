package io.sluice.server.front;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * NCSA combined log lines with the decision appended ({@code sluice=ADMIT}, {@code sluice=REFUSE:HIT_STACK}).
 * Lines are queued and written by one daemon thread, so a slow disk never slows the request path;
 * when the queue is full a line is dropped and counted rather than blocking a request.
 */
public final class AccessLog implements AutoCloseable {
    private static final DateTimeFormatter NCSA =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(65_536);
    private final Writer out;
    private final Thread writer;
    private volatile boolean open = true;
    private long dropped;

    private AccessLog(Writer out) {
        this.out = out;
        this.writer = new Thread(this::drain, "sluice-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    /** {@code "-"} for standard output, else a file appended to. */
    public static AccessLog open(String target) throws IOException {
        if ("-".equals(target)) {
            return new AccessLog(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        }
        return new AccessLog(Files.newBufferedWriter(Path.of(target), StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND));
    }

    void log(String ip, Instant at, String method, String target, String protocol, int status, long bytes,
             String referer, String userAgent, String decision) {
        String line = ip + " - - [" + NCSA.format(at) + "] \"" + method + ' ' + target + ' ' + protocol + "\" "
                + status + ' ' + (bytes < 0 ? "-" : Long.toString(bytes)) + " \"" + quote(referer) + "\" \""
                + quote(userAgent) + "\" sluice=" + decision;
        if (!lines.offer(line)) {
            synchronized (this) {
                dropped++;
            }
        }
    }

    /** Lines dropped because the writer could not keep up. */
    public synchronized long dropped() {
        return dropped;
    }

    private static String quote(String value) {
        if (value == null || value.isEmpty()) {
            return "-";
        }
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private void drain() {
        try {
            while (open || !lines.isEmpty()) {
                String line = lines.poll(200, TimeUnit.MILLISECONDS);
                if (line == null) {
                    out.flush();
                    continue;
                }
                out.write(line);
                out.write('\n');
                if (lines.isEmpty()) {
                    out.flush();
                }
            }
            out.flush();
        } catch (IOException | InterruptedException e) {
            open = false;
        }
    }

    @Override
    public void close() {
        open = false;
        try {
            writer.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
