package io.sluice.engine.whatif;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

/**
 * Access logs written by the tests, in the three dialects a replay reads: the same requests as Sluice, nginx
 * and Apache would log them (each with its own escaping of a quote and its own time zone).
 */
final class GeneratedLog {

    /** One logged request; {@code decision} is what Sluice logged (null: admitted). */
    record Line(long atMillis, String ip, String userAgent, String target, String decision) {
    }

    enum Dialect {
        /** Sluice's own: UTC, {@code \"} escapes, {@code sluice=DECISION} at the end. */
        SLUICE(ZoneOffset.UTC),
        /** nginx {@code combined}: {@code \x22} and {@code \x5C} escapes. */
        NGINX(ZoneOffset.ofHours(2)),
        /** Apache {@code combined}: {@code \"} escapes, {@code -} for no body. */
        APACHE(ZoneOffset.ofHours(-7));

        final ZoneOffset zone;

        Dialect(ZoneOffset zone) {
            this.zone = zone;
        }
    }

    private final List<Line> lines = new ArrayList<>();

    /** {@code count} requests from one client, {@code everyMillis} apart, from {@code startMillis}. */
    GeneratedLog every(long startMillis, long everyMillis, int count, String ip, String userAgent,
                       DecisionModel decisions) {
        for (int i = 0; i < count; i++) {
            lines.add(new Line(startMillis + i * everyMillis, ip, userAgent, "/page/" + i + "?ref=" + (i % 3),
                    decisions.decision(i)));
        }
        return this;
    }

    /** What Sluice logged for a client's {@code i}-th request: null for ADMIT. */
    interface DecisionModel {
        DecisionModel ADMIT = i -> null;

        String decision(int i);

        /** The first {@code n} admitted, the rest refused by the hit stack. */
        static DecisionModel admitFirst(int n) {
            return i -> i < n ? null : "REFUSE:HIT_STACK";
        }
    }

    List<String> render(Dialect dialect) {
        DateTimeFormatter format = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
                .withZone(dialect.zone);
        List<String> out = new ArrayList<>();
        lines.stream().sorted(Comparator.comparingLong(Line::atMillis)).forEach(line -> {
            boolean refused = line.decision() != null && line.decision().startsWith("REFUSE");
            int status = refused ? 503 : 200;
            String bytes = refused && dialect == Dialect.APACHE ? "-" : refused ? "0" : "5120";
            String agent = dialect == Dialect.NGINX ? line.userAgent().replace("\\", "\\x5C").replace("\"", "\\x22")
                    : line.userAgent().replace("\\", "\\\\").replace("\"", "\\\"");
            String text = line.ip() + " - - [" + format.format(Instant.ofEpochMilli(line.atMillis())) + "] \"GET "
                    + line.target() + " HTTP/1.1\" " + status + " " + bytes + " \"-\" \"" + agent + "\"";
            if (dialect == Dialect.SLUICE) {
                text += " sluice=" + (line.decision() == null ? "ADMIT" : line.decision());
            }
            out.add(text);
        });
        return out;
    }

    Path write(Path file, Dialect dialect, boolean gzip, List<String> extraLines) throws IOException {
        List<String> all = new ArrayList<>(render(dialect));
        all.addAll(all.size() / 2, extraLines);
        try (OutputStream raw = Files.newOutputStream(file);
             OutputStream out = gzip ? new GZIPOutputStream(raw) : raw;
             Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            for (String line : all) {
                writer.write(line);
                writer.write('\n');
            }
        }
        return file;
    }
}
