package io.sluice.server.front;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Agents;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.junit.jupiter.api.Test;

/** The trap's hidden link put into a page as it streams: once, before {@code </body}, whatever the buffers. */
class TrapLinkTest {
    private static final Agents.Trap TRAP = new Agents.Trap("/.trap/", null, null, true);
    private static final String LINK = "<a href=\"/.trap/\" rel=\"nofollow\" hidden aria-hidden=\"true\""
            + " tabindex=\"-1\"></a>";

    @Test
    void theLinkGoesBeforeTheBodysEndEvenWhenABufferBoundaryCutsIt() {
        String page = "<html><BODY><p>hi</p></BoDy></html>";
        for (int cut = 0; cut <= page.length(); cut++) {
            assertThat(stream(page.substring(0, cut), page.substring(cut)))
                    .as("cut at " + cut).isEqualTo("<html><BODY><p>hi</p>" + LINK + "</BoDy></html>");
        }
    }

    @Test
    void aPageWithoutABodyEndGetsItAtTheEndAndEveryPageGetsItOnce() {
        assertThat(stream("<p>a fragment", "</p>")).isEqualTo("<p>a fragment</p>" + LINK);
        assertThat(stream("")).isEqualTo(LINK);
        assertThat(stream("<body></body>", "<body></body>")).isEqualTo("<body>" + LINK + "</body><body></body>");
    }

    @Test
    void onlyAnUncompressedHtmlPageAnsweredToAGetGetsIt() {
        assertThat(TrapLink.wanted("GET", 200, fields("text/html; charset=utf-8", null))).isTrue();
        assertThat(TrapLink.wanted("GET", 200, fields("TEXT/HTML", "identity"))).isTrue();
        assertThat(TrapLink.wanted("GET", 200, fields("text/html", "gzip"))).as("compressed").isFalse();
        assertThat(TrapLink.wanted("GET", 200, fields("application/json", null))).isFalse();
        assertThat(TrapLink.wanted("GET", 200, fields(null, null))).isFalse();
        assertThat(TrapLink.wanted("GET", 206, fields("text/html", null))).as("a range").isFalse();
        assertThat(TrapLink.wanted("POST", 200, fields("text/html", null))).isFalse();
    }

    @Test
    void theLengthGrowsByTheLinkAndAStrongTagTurnsWeak() {
        HttpFields.Mutable fields = HttpFields.build().put(HttpHeader.CONTENT_LENGTH, "100")
                .put(HttpHeader.ETAG, "\"v1\"");
        new TrapLink(TrapLink.of(TRAP)).adjust(fields);
        assertThat(fields.get(HttpHeader.CONTENT_LENGTH)).isEqualTo(Integer.toString(100 + LINK.length()));
        assertThat(fields.get(HttpHeader.ETAG)).isEqualTo("W/\"v1\"");
    }

    @Test
    void noLinkWithoutTheOptionAndThePathIsEscaped() {
        assertThat(TrapLink.of(new Agents.Trap("/.trap/", null, null, false))).isNull();
        assertThat(TrapLink.of(Agents.Trap.NONE)).isNull();
        assertThat(new String(TrapLink.of(new Agents.Trap("/t\"<&/", null, null, true)), StandardCharsets.UTF_8))
                .startsWith("<a href=\"/t&quot;&lt;&amp;/\"");
    }

    private static HttpFields fields(String type, String coding) {
        HttpFields.Mutable fields = HttpFields.build();
        if (type != null) {
            fields.put(HttpHeader.CONTENT_TYPE, type);
        }
        if (coding != null) {
            fields.put(HttpHeader.CONTENT_ENCODING, coding);
        }
        return fields;
    }

    private static String stream(String... buffers) {
        TrapLink link = new TrapLink(TrapLink.of(TRAP));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String buffer : buffers) {
            write(out, link.next(ByteBuffer.wrap(buffer.getBytes(StandardCharsets.UTF_8))));
        }
        write(out, link.last());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void write(ByteArrayOutputStream out, ByteBuffer bytes) {
        byte[] copy = new byte[bytes.remaining()];
        bytes.get(copy);
        out.writeBytes(copy);
    }
}
