package io.sluice.server.front;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * An access log line as one JSON object: the NCSA line's fields, named, with the time to the millisecond in
 * ISO 8601 and absent values as {@code null}:
 * <pre>
 * {"time":"2025-10-10T13:55:36.123Z","ip":"203.0.113.7","method":"GET","target":"/a?b=1","protocol":"HTTP/1.1",
 *  "status":200,"bytes":512,"referer":null,"user_agent":"curl/8.5.0","sluice":"ADMIT"}
 * </pre>
 * Written by hand rather than through Jackson: it is on every request's path, and ten fields need no tree.
 */
final class JsonLine {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private JsonLine() {
    }

    static String of(String ip, Instant at, String method, String target, String protocol, int status, long bytes,
                     String referer, String userAgent, String decision) {
        StringBuilder line = new StringBuilder(256);
        line.append("{\"time\":\"").append(TIME.format(at)).append('"');
        string(line, "ip", ip);
        string(line, "method", method);
        string(line, "target", target);
        string(line, "protocol", protocol);
        line.append(",\"status\":").append(status);
        line.append(",\"bytes\":").append(bytes < 0 ? "null" : Long.toString(bytes));
        string(line, "referer", referer == null || referer.isEmpty() ? null : referer);
        string(line, "user_agent", userAgent == null || userAgent.isEmpty() ? null : userAgent);
        string(line, "sluice", decision);
        return line.append('}').toString();
    }

    private static void string(StringBuilder line, String name, String value) {
        line.append(",\"").append(name).append("\":");
        if (value == null) {
            line.append("null");
            return;
        }
        line.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> line.append("\\\"");
                case '\\' -> line.append("\\\\");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                default -> {
                    // Other control characters (a header can carry them: C0, DEL, C1) would end or corrupt the line
                    // for some reader, and so would the Unicode line and paragraph separators for JavaScript's.
                    if (c < 0x20 || c >= 0x7f && c <= 0x9f || c == 0x2028 || c == 0x2029) {
                        line.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        line.append(c);
                    }
                }
            }
        }
        line.append('"');
    }
}
