package io.sluice.server.front;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * Which header fields belong to one connection and must not cross the proxy, in either direction
 * (RFC 9110 section 7.6.1): the fixed hop-by-hop set, and every field the message's own
 * {@code Connection} header names. One place for the rule, used for requests and responses alike.
 */
final class HopByHop {
    private static final Set<HttpHeader> ALWAYS = EnumSet.of(
            HttpHeader.CONNECTION,
            HttpHeader.KEEP_ALIVE,
            HttpHeader.PROXY_AUTHORIZATION,
            HttpHeader.PROXY_AUTHENTICATE,
            HttpHeader.PROXY_CONNECTION,
            HttpHeader.TRANSFER_ENCODING,
            HttpHeader.TE,
            HttpHeader.TRAILER,
            HttpHeader.UPGRADE);

    /** A message with no {@code Connection} options beyond the usual ones: nothing extra to strip. */
    private static final String[] NONE = new String[0];

    private final String[] namedInConnection;

    private HopByHop(String[] namedInConnection) {
        this.namedInConnection = namedInConnection;
    }

    /** The rule for one message: the fixed set plus what its {@code Connection} header names. */
    static HopByHop of(HttpFields message) {
        HttpField connection = message.getField(HttpHeader.CONNECTION);
        if (connection == null) {
            return new HopByHop(NONE);
        }
        // Rare beyond "keep-alive" / "close" / "upgrade"; only then is anything allocated.
        List<String> names = new ArrayList<>(2);
        for (HttpField field : message) {
            if (field.getHeader() != HttpHeader.CONNECTION) {
                continue;
            }
            for (String token : field.getValues()) {
                String name = token.trim().toLowerCase(Locale.ROOT);
                if (!name.isEmpty() && !"close".equals(name) && !"keep-alive".equals(name)) {
                    names.add(name);
                }
            }
        }
        return new HopByHop(names.isEmpty() ? NONE : names.toArray(NONE));
    }

    /** True when {@code field} stays on this side of the proxy. */
    boolean strips(HttpField field) {
        HttpHeader header = field.getHeader();
        if (header != null && ALWAYS.contains(header)) {
            return true;
        }
        for (String name : namedInConnection) {
            if (field.is(name)) {
                return true;
            }
        }
        return false;
    }
}
