package io.sluice.engine.whatif;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.engine.net.IpAddress;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Parses Sluice's JSON access log lines ({@code --access-log-format json}), one object a line:
 * <pre>
 * {"time":"2025-10-10T13:55:36.123Z","ip":"203.0.113.7","method":"GET","target":"/a?b=1","protocol":"HTTP/1.1",
 *  "status":200,"bytes":512,"referer":null,"user_agent":"curl/8.5.0","sluice":"ADMIT"}
 * </pre>
 * Fields may come in any order and others are ignored (a log shipper may add its own). A line without
 * {@code time}, {@code ip}, {@code method} and {@code target}, or not an object, gives null. Streamed, without a
 * tree: replay reads millions of lines.
 */
final class JsonLogParser {
    private static final JsonFactory JSON = new JsonFactory();

    /** The request on {@code line[start, end)}, or null when it is not one. */
    LogEntry parse(byte[] line, int start, int end) {
        String time = null;
        String ip = null;
        String method = null;
        String target = null;
        String userAgent = null;
        String decision = null;
        try (JsonParser parser = JSON.createParser(line, start, end - start)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
                    parser.skipChildren();
                    continue;
                }
                String text = value == JsonToken.VALUE_NULL ? null : parser.getText();
                switch (name) {
                    case "time" -> time = text;
                    case "ip" -> ip = text;
                    case "method" -> method = text;
                    case "target" -> target = text;
                    case "user_agent" -> userAgent = text;
                    case "sluice" -> decision = text;
                    default -> {
                        // status, bytes, referer, protocol, a shipper's own fields: not needed to replay
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        if (time == null || ip == null || method == null || target == null || IpAddress.tryParse(ip) == null) {
            return null;
        }
        long epochSecond;
        try {
            epochSecond = Instant.parse(time).getEpochSecond();
        } catch (DateTimeParseException e) {
            return null;
        }
        String path = path(target);
        if (path == null) {
            return null;
        }
        int queryMark = target.indexOf('?');
        return new LogEntry(epochSecond, ip, method, path, queryMark < 0 ? null : target.substring(queryMark + 1),
                userAgent == null ? "" : userAgent, decision == null ? null : Outcome.parse(decision));
    }

    /** The path of a request target: the query cut off, an absolute URI's scheme and authority too. */
    private static String path(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        if (path.startsWith("/") || "*".equals(path)) {
            return path;
        }
        int scheme = path.indexOf("://");
        if (scheme < 0) {
            return null;
        }
        int slash = path.indexOf('/', scheme + 3);
        return slash < 0 ? "/" : path.substring(slash);
    }
}
