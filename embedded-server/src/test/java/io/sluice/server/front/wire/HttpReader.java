package io.sluice.server.front.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads HTTP/1.1 messages byte by byte from a stream, framing bodies as RFC 9112 section 6.3 says.
 * Deliberately simple and strict: it is the test's independent view of what crossed the wire.
 */
public final class HttpReader {
    private final InputStream in;

    public HttpReader(InputStream in) {
        this.in = in;
    }

    /** The next request, or null if the connection ended cleanly before one began. */
    public RawMessage readRequest() throws IOException {
        List<String> head = readHead();
        if (head == null) {
            return null;
        }
        List<RawMessage.Field> fields = fields(head);
        String te = value(fields, "Transfer-Encoding");
        String length = value(fields, "Content-Length");
        if (te != null) {
            return chunked(head.get(0), fields);
        }
        return fixed(head.get(0), fields, length == null ? 0 : Long.parseLong(length.trim()));
    }

    /**
     * The next response, or null if the connection ended before one began.
     *
     * @param toHead whether it answers a HEAD request (then it has no body whatever its headers say)
     */
    public RawMessage readResponse(boolean toHead) throws IOException {
        List<String> head = readHead();
        if (head == null) {
            return null;
        }
        List<RawMessage.Field> fields = fields(head);
        int status = Integer.parseInt(head.get(0).split(" ", 3)[1]);
        if (toHead || status / 100 == 1 || status == 204 || status == 304) {
            return new RawMessage(head.get(0), fields, new byte[0], true, false);
        }
        if (value(fields, "Transfer-Encoding") != null) {
            return chunked(head.get(0), fields);
        }
        String length = value(fields, "Content-Length");
        if (length != null) {
            return fixed(head.get(0), fields, Long.parseLong(length.trim()));
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        in.transferTo(body);
        return new RawMessage(head.get(0), fields, body.toByteArray(), true, false);
    }

    /** The next final response, skipping (and collecting into {@code interim}) any 1xx before it. */
    public RawMessage readFinalResponse(boolean toHead, List<RawMessage> interim) throws IOException {
        while (true) {
            RawMessage response = readResponse(toHead);
            if (response == null || response.status() >= 200) {
                return response;
            }
            interim.add(response);
        }
    }

    /** The stream under the reader, positioned after whatever was read, for bodies read by the caller. */
    public InputStream stream() {
        return in;
    }

    /** Reads and drops {@code count} body bytes, reporting how many there were before the end of the stream. */
    public long skip(long count) throws IOException {
        long skipped = 0;
        byte[] buffer = new byte[65536];
        while (skipped < count) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, count - skipped));
            if (read < 0) {
                break;
            }
            skipped += read;
        }
        return skipped;
    }

    /** The head's lines (start line first), or null on a clean end of stream before it. */
    public List<String> readHead() throws IOException {
        List<String> lines = new ArrayList<>();
        while (true) {
            String line = readLine();
            if (line == null) {
                if (lines.isEmpty()) {
                    return null;
                }
                throw new IOException("connection ended inside a message head: " + lines);
            }
            if (line.isEmpty()) {
                return lines;
            }
            lines.add(line);
        }
    }

    private RawMessage fixed(String start, List<RawMessage.Field> fields, long length) throws IOException {
        byte[] body = in.readNBytes((int) length);
        return new RawMessage(start, fields, body, body.length == length, false);
    }

    private RawMessage chunked(String start, List<RawMessage.Field> fields) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = readLine();
            if (size == null) {
                return new RawMessage(start, fields, body.toByteArray(), false, true);
            }
            int semicolon = size.indexOf(';');
            int length = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (length == 0) {
                // Trailer fields, then the empty line.
                while (true) {
                    String trailer = readLine();
                    if (trailer == null) {
                        return new RawMessage(start, fields, body.toByteArray(), false, true);
                    }
                    if (trailer.isEmpty()) {
                        return new RawMessage(start, fields, body.toByteArray(), true, true);
                    }
                }
            }
            byte[] chunk = in.readNBytes(length);
            body.write(chunk);
            if (chunk.length < length || readLine() == null) {
                return new RawMessage(start, fields, body.toByteArray(), false, true);
            }
        }
    }

    /** A line without its CRLF; null at the end of the stream before any byte of it. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
            }
            if (b == '\n') {
                String text = line.toString(StandardCharsets.ISO_8859_1);
                return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
            }
            line.write(b);
        }
    }

    private static List<RawMessage.Field> fields(List<String> head) {
        List<RawMessage.Field> fields = new ArrayList<>();
        for (String line : head.subList(1, head.size())) {
            int colon = line.indexOf(':');
            fields.add(new RawMessage.Field(line.substring(0, colon), line.substring(colon + 1).trim()));
        }
        return fields;
    }

    private static String value(List<RawMessage.Field> fields, String name) {
        for (RawMessage.Field field : fields) {
            if (field.name().equalsIgnoreCase(name)) {
                return field.value();
            }
        }
        return null;
    }
}
