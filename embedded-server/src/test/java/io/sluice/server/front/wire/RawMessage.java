package io.sluice.server.front.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One HTTP/1.1 message as it crossed the wire: the start line, the header fields in order and as
 * written, and the body after de-chunking.
 *
 * @param complete false when the connection ended before the framing said the message was over
 * @param chunked  whether the body came with {@code Transfer-Encoding: chunked}
 */
public record RawMessage(String startLine, List<Field> fields, byte[] body, boolean complete, boolean chunked) {

    /** A header field, name as written. */
    public record Field(String name, String value) {
    }

    /** The status code of a response. */
    public int status() {
        return Integer.parseInt(startLine.split(" ", 3)[1]);
    }

    /** The method of a request. */
    public String method() {
        return startLine.split(" ", 3)[0];
    }

    /** The request target of a request, exactly as sent. */
    public String target() {
        return startLine.split(" ", 3)[1];
    }

    /** Every value of the field called {@code name} (any case), one per field line. */
    public List<String> all(String name) {
        List<String> values = new ArrayList<>();
        for (Field field : fields) {
            if (field.name().equalsIgnoreCase(name)) {
                values.add(field.value());
            }
        }
        return values;
    }

    /** The value of the only field called {@code name}, or null; fails if there are several. */
    public String header(String name) {
        List<String> values = all(name);
        if (values.size() > 1) {
            throw new AssertionError(name + " sent " + values.size() + " times: " + values);
        }
        return values.isEmpty() ? null : values.get(0);
    }

    /** The field names, lower-cased, in order. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        for (Field field : fields) {
            names.add(field.name().toLowerCase(Locale.ROOT));
        }
        return names;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return startLine + " " + fields + " body " + body.length + " bytes" + (complete ? "" : " (incomplete)");
    }
}
