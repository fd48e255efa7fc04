package io.sluice.engine.whatif;

import io.sluice.engine.net.IpAddress;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * Parses NCSA combined log lines as Sluice, nginx ({@code log_format combined}) and Apache
 * ({@code LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"" combined}) write them:
 * <pre>
 * 203.0.113.7 - - [10/Oct/2025:13:55:36 +0000] "GET /a?b=1 HTTP/1.1" 200 512 "-" "curl/8.5.0" sluice=ADMIT
 * </pre>
 * Fields after the user agent are allowed; one of them may be Sluice's {@code sluice=DECISION}. Quoted
 * fields may escape with {@code \"} and {@code \\} (Apache, Sluice) or {@code \xHH} (nginx).
 *
 * <p>By hand, over bytes, without regular expressions: a day's log of a busy site is millions of lines, and
 * a replay should take seconds. A line that is not a request (a hostname instead of an address, {@code "-"}
 * or garbage as the request line, a broken date) gives null. One parser per thread: it caches the last
 * timestamp.
 */
final class CombinedLogParser {
    private static final String MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
    private static final byte[] SLUICE = " sluice=".getBytes(StandardCharsets.US_ASCII);
    private static final int TIME_LENGTH = 26; // 10/Oct/2025:13:55:36 +0000

    private final byte[] lastTime = new byte[TIME_LENGTH];
    private long lastEpochSecond = Long.MIN_VALUE;

    /** The request on {@code line[start, end)} (no line terminator), or null when it is not one. */
    LogEntry parse(byte[] line, int start, int end) {
        int hostEnd = indexOf(line, start, end, (byte) ' ');
        if (hostEnd <= start) {
            return null;
        }
        String ip = ascii(line, start, hostEnd);
        if (IpAddress.tryParse(ip) == null) {
            return null;
        }
        int open = indexOf(line, hostEnd, end, (byte) '[');
        if (open < 0 || open + 1 + TIME_LENGTH >= end || line[open + 1 + TIME_LENGTH] != ']') {
            return null;
        }
        long epochSecond = time(line, open + 1);
        if (epochSecond == Long.MIN_VALUE) {
            return null;
        }
        int pos = open + 2 + TIME_LENGTH;
        // "request"
        if (pos + 1 >= end || line[pos] != ' ' || line[pos + 1] != '"') {
            return null;
        }
        int requestStart = pos + 2;
        int requestEnd = closingQuote(line, requestStart, end);
        if (requestEnd < 0) {
            return null;
        }
        int methodEnd = indexOf(line, requestStart, requestEnd, (byte) ' ');
        if (methodEnd <= requestStart) {
            return null;
        }
        int targetStart = methodEnd + 1;
        int targetEnd = indexOf(line, targetStart, requestEnd, (byte) ' ');
        if (targetEnd < 0) {
            targetEnd = requestEnd; // HTTP/0.9: no protocol
        }
        if (targetEnd <= targetStart) {
            return null;
        }
        String method = ascii(line, requestStart, methodEnd);
        String path = path(line, targetStart, targetEnd);
        if (path == null) {
            return null;
        }
        int queryMark = indexOf(line, targetStart, targetEnd, (byte) '?');
        String query = queryMark < 0 ? null : unquote(line, queryMark + 1, targetEnd);
        // status bytes "referer" "user agent"
        pos = requestEnd + 1;
        int refererQuote = skipToQuote(line, pos, end, 2);
        if (refererQuote < 0) {
            return null;
        }
        int refererEnd = closingQuote(line, refererQuote + 1, end);
        if (refererEnd < 0 || refererEnd + 2 >= end || line[refererEnd + 1] != ' ' || line[refererEnd + 2] != '"') {
            return null;
        }
        int agentStart = refererEnd + 3;
        int agentEnd = closingQuote(line, agentStart, end);
        if (agentEnd < 0) {
            return null;
        }
        String userAgent = unquote(line, agentStart, agentEnd);
        return new LogEntry(epochSecond, ip, method, path, query, "-".equals(userAgent) ? "" : userAgent,
                decision(line, agentEnd + 1, end));
    }

    /** Skips {@code fields} space-separated unquoted fields (status, bytes) and returns the next quote. */
    private static int skipToQuote(byte[] line, int pos, int end, int fields) {
        int at = pos;
        for (int i = 0; i < fields; i++) {
            if (at >= end || line[at] != ' ') {
                return -1;
            }
            at = indexOf(line, at + 1, end, (byte) ' ');
            if (at < 0) {
                return -1;
            }
        }
        return at + 1 < end && line[at] == ' ' && line[at + 1] == '"' ? at + 1 : -1;
    }

    private static Outcome decision(byte[] line, int from, int end) {
        outer:
        for (int i = from; i + SLUICE.length < end; i++) {
            for (int j = 0; j < SLUICE.length; j++) {
                if (line[i + j] != SLUICE[j]) {
                    continue outer;
                }
            }
            int start = i + SLUICE.length;
            int stop = indexOf(line, start, end, (byte) ' ');
            return Outcome.parse(ascii(line, start, stop < 0 ? end : stop));
        }
        return null;
    }

    /** The path of a request target: the query cut off, an absolute URI's scheme and authority too. */
    private static String path(byte[] line, int start, int end) {
        int from = start;
        if (line[from] != '/') {
            int scheme = indexOf(line, from, end, (byte) ':');
            if (scheme < 0 || scheme + 2 >= end || line[scheme + 1] != '/' || line[scheme + 2] != '/') {
                return "*".equals(ascii(line, start, end)) ? "*" : null;
            }
            int slash = indexOf(line, scheme + 3, end, (byte) '/');
            if (slash < 0) {
                return "/";
            }
            from = slash;
        }
        int query = indexOf(line, from, end, (byte) '?');
        return unquote(line, from, query < 0 ? end : query);
    }

    /** The epoch second of {@code dd/MMM/yyyy:HH:mm:ss +zzzz} at {@code at}, or MIN_VALUE when it is not one. */
    private long time(byte[] line, int at) {
        boolean same = lastEpochSecond != Long.MIN_VALUE;
        for (int i = 0; same && i < TIME_LENGTH; i++) {
            same = line[at + i] == lastTime[i];
        }
        if (same) {
            return lastEpochSecond;
        }
        long parsed = parseTime(line, at);
        if (parsed != Long.MIN_VALUE) {
            System.arraycopy(line, at, lastTime, 0, TIME_LENGTH);
            lastEpochSecond = parsed;
        }
        return parsed;
    }

    private static long parseTime(byte[] b, int at) {
        if (b[at + 2] != '/' || b[at + 6] != '/' || b[at + 11] != ':' || b[at + 14] != ':' || b[at + 17] != ':'
                || b[at + 20] != ' ') {
            return Long.MIN_VALUE;
        }
        int day = digits(b, at, 2);
        int month = MONTHS.indexOf(new String(b, at + 3, 3, StandardCharsets.US_ASCII)) / 3 + 1;
        int year = digits(b, at + 7, 4);
        int hour = digits(b, at + 12, 2);
        int minute = digits(b, at + 15, 2);
        int second = digits(b, at + 18, 2);
        int offsetHours = digits(b, at + 22, 2);
        int offsetMinutes = digits(b, at + 24, 2);
        byte sign = b[at + 21];
        if (day < 1 || day > 31 || month < 1 || year < 0 || hour > 23 || minute > 59 || second > 60
                || offsetHours < 0 || offsetMinutes < 0 || sign != '+' && sign != '-') {
            return Long.MIN_VALUE;
        }
        long days;
        try {
            days = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return Long.MIN_VALUE;
        }
        long offset = (offsetHours * 3600L + offsetMinutes * 60L) * (sign == '-' ? -1 : 1);
        return days * 86_400 + hour * 3600L + minute * 60L + second - offset;
    }

    private static int digits(byte[] b, int at, int count) {
        int value = 0;
        for (int i = 0; i < count; i++) {
            int d = b[at + i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            value = value * 10 + d;
        }
        return value;
    }

    /** The index of the quote closing a field that starts at {@code from}; a backslash escapes what follows. */
    private static int closingQuote(byte[] line, int from, int end) {
        for (int i = from; i < end; i++) {
            byte c = line[i];
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i;
            }
        }
        return -1;
    }

    /** The text of a quoted field, its escapes undone ({@code \"}, {@code \\}, {@code \xHH}, {@code \n}...). */
    private static String unquote(byte[] line, int start, int end) {
        if (indexOf(line, start, end, (byte) '\\') < 0) {
            return new String(line, start, end - start, StandardCharsets.UTF_8);
        }
        byte[] out = new byte[end - start];
        int n = 0;
        for (int i = start; i < end; i++) {
            byte c = line[i];
            if (c != '\\' || i + 1 >= end) {
                out[n++] = c;
                continue;
            }
            byte next = line[++i];
            if (next == 'x' && i + 2 < end && hex(line[i + 1]) >= 0 && hex(line[i + 2]) >= 0) {
                out[n++] = (byte) (hex(line[i + 1]) * 16 + hex(line[i + 2]));
                i += 2;
            } else if (next == 'n') {
                out[n++] = '\n';
            } else if (next == 't') {
                out[n++] = '\t';
            } else if (next == 'r') {
                out[n++] = '\r';
            } else {
                out[n++] = next;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    private static int hex(byte c) {
        return Character.digit((char) (c & 0xff), 16);
    }

    private static int indexOf(byte[] line, int from, int end, byte wanted) {
        for (int i = from; i < end; i++) {
            if (line[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static String ascii(byte[] line, int start, int end) {
        return new String(line, start, end - start, StandardCharsets.ISO_8859_1);
    }
}
