package io.sluice.server.front;

import io.sluice.engine.policy.Agents;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * The hidden link to the trap path that the front end puts into the upstream's HTML pages when the policy says so
 * ({@code agents.trap.injectLinks}; docs/manual/policy.md, "The trap"). A person never sees nor reaches it (the
 * {@code hidden} attribute, out of the tab order, hidden from screen readers); a compliant crawler never follows it
 * (the trap is disallowed for every agent in the robots.txt Sluice serves, and the link is {@code nofollow}); a
 * scraper that follows every {@code href} fetches it and is marked.
 *
 * <p>Which responses: a 200 to a {@code GET} whose {@code Content-Type} is {@code text/html} and that has no content
 * coding (a compressed page is passed on untouched: Sluice never decodes and re-encodes a body). The link goes right
 * before the first {@code </body} (any case), or at the very end when there is none; once per page. The body streams
 * through as before: at most {@code </body} less one byte is held back between two buffers, so nothing is buffered
 * whole. A {@code Content-Length} grows by the link's length (the page keeps a length, no switch to chunked); a strong
 * {@code ETag} becomes weak, since the bytes are no longer the upstream's. One instance per response, used by one
 * thread at a time (the proxy's response listener).
 */
final class TrapLink {
    /** A request attribute: the link's bytes, set by {@link ThrottleHandler} for a request that may get one. */
    static final String ATTRIBUTE = TrapLink.class.getName();

    private static final byte[] BODY_END = "</body".getBytes(StandardCharsets.US_ASCII);

    private final byte[] link;
    /** The end of the last buffer, held back because it may be the start of {@code </body}. */
    private byte[] held = new byte[0];
    private boolean placed;

    TrapLink(byte[] link) {
        this.link = link;
    }

    /** The link's bytes for {@code trap}, or null when the policy does not inject links. */
    static byte[] of(Agents.Trap trap) {
        if (trap == null || !trap.set() || !Boolean.TRUE.equals(trap.injectLinks())) {
            return null;
        }
        String html = "<a href=\"" + escape(trap.path()) + "\" rel=\"nofollow\" hidden aria-hidden=\"true\""
                + " tabindex=\"-1\"></a>";
        return html.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether a response with this status and these fields gets the link. */
    static boolean wanted(String method, int status, HttpFields fields) {
        if (!"GET".equals(method) || status != 200) {
            return false;
        }
        String type = fields.get(HttpHeader.CONTENT_TYPE);
        if (type == null || !"text/html".equals(type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT))) {
            return false;
        }
        String coding = fields.get(HttpHeader.CONTENT_ENCODING);
        return coding == null || coding.isBlank() || "identity".equalsIgnoreCase(coding.trim());
    }

    /** The response fields for the changed body: its length grown by the link, a strong entity tag made weak. */
    void adjust(HttpFields.Mutable fields) {
        String length = fields.get(HttpHeader.CONTENT_LENGTH);
        if (length != null) {
            try {
                fields.put(HttpHeader.CONTENT_LENGTH, Long.toString(Long.parseLong(length.trim()) + link.length));
            } catch (NumberFormatException unreadable) {
                fields.remove(HttpHeader.CONTENT_LENGTH); // the body's end is then the framing's to say
            }
        }
        HttpField etag = fields.getField(HttpHeader.ETAG);
        if (etag != null && etag.getValue() != null && !etag.getValue().startsWith("W/")) {
            fields.put(HttpHeader.ETAG, "W/" + etag.getValue());
        }
    }

    /** Whether the link is in the bytes handed out so far. */
    boolean placed() {
        return placed;
    }

    /** What to write for the next buffer of the body: its bytes, the link put in once, a few held back. */
    ByteBuffer next(ByteBuffer content) {
        byte[] bytes = new byte[held.length + content.remaining()];
        System.arraycopy(held, 0, bytes, 0, held.length);
        content.duplicate().get(bytes, held.length, content.remaining());
        if (placed) {
            held = new byte[0];
            return ByteBuffer.wrap(bytes);
        }
        int at = indexOfBodyEnd(bytes);
        if (at >= 0) {
            placed = true;
            held = new byte[0];
            return ByteBuffer.wrap(join(bytes, at));
        }
        // Keep back what could begin "</body" across the boundary with the next buffer.
        int keep = Math.min(bytes.length, BODY_END.length - 1);
        held = Arrays.copyOfRange(bytes, bytes.length - keep, bytes.length);
        return ByteBuffer.wrap(bytes, 0, bytes.length - keep);
    }

    /** What to write at the end of the body: the bytes held back, and the link if no {@code </body} came. */
    ByteBuffer last() {
        byte[] bytes = held;
        held = new byte[0];
        if (placed) {
            return ByteBuffer.wrap(bytes);
        }
        placed = true;
        return ByteBuffer.wrap(join(bytes, bytes.length));
    }

    private byte[] join(byte[] bytes, int at) {
        byte[] out = new byte[bytes.length + link.length];
        System.arraycopy(bytes, 0, out, 0, at);
        System.arraycopy(link, 0, out, at, link.length);
        System.arraycopy(bytes, at, out, at + link.length, bytes.length - at);
        return out;
    }

    private static int indexOfBodyEnd(byte[] bytes) {
        outer:
        for (int i = 0; i + BODY_END.length <= bytes.length; i++) {
            for (int j = 0; j < BODY_END.length; j++) {
                byte b = bytes[i + j];
                if (b >= 'A' && b <= 'Z') {
                    b = (byte) (b + ('a' - 'A'));
                }
                if (b != BODY_END[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The path in an attribute value: the validator allows any printable character, {@code "} and {@code <} too. */
    private static String escape(String path) {
        StringBuilder out = new StringBuilder(path.length() + 8);
        for (char c : path.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
