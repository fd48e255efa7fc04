package io.sluice.server.front;

import io.sluice.engine.Request;
import io.sluice.engine.check.BrowserPasses;
import java.util.List;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;

/**
 * What both front-end paths (Jetty's and the lean one) tell the engine about a request, read from its headers the
 * same way: the one forwarding header the policy names (a second one a client sends changes nothing), the
 * {@code Sec-Fetch-*} and {@code Accept} headers, and the browser check's pass cookie.
 */
final class EngineRequests {

    private static final String SEC_FETCH_DEST = "Sec-Fetch-Dest";
    private static final String SEC_FETCH_MODE = "Sec-Fetch-Mode";
    /** A pass cookie is short; a longer value is not one (and is not worth reading). */
    private static final int MAX_PASS = 256;

    private EngineRequests() {
    }

    /**
     * @param canonicalPath the decoded, normalised path (what the site will serve), so routes see /search for
     *                      /%73earch
     */
    static Request of(String peer, HttpFields headers, String forwardedHeader, String method, String canonicalPath,
                      String query) {
        return new Request(peer, headers.get(HttpHeader.USER_AGENT), joined(headers.getValuesList(forwardedHeader)),
                method, canonicalPath, query, headers.get(SEC_FETCH_DEST), headers.get(SEC_FETCH_MODE),
                headers.get(HttpHeader.ACCEPT), pass(headers));
    }

    /**
     * The same, with what an HTTP message signature may cover when the request carries one
     * ({@link SignedMessages}): the request as sent (its raw path, its authority, the scheme it came by).
     */
    static Request of(String peer, HttpFields headers, String forwardedHeader, String method, String canonicalPath,
                      String query, String rawPath, String authority, boolean secure) {
        Request request = of(peer, headers, forwardedHeader, method, canonicalPath, query);
        return headers.contains(SignedMessages.SIGNATURE_INPUT)
                ? request.withSigned(SignedMessages.of(headers, method, secure, authority, rawPath, query)) : request;
    }

    /** The value of the pass cookie, or null: the first one found in any {@code Cookie} header. */
    static String pass(HttpFields headers) {
        for (HttpField field : headers) {
            if (field.getHeader() != HttpHeader.COOKIE) {
                continue;
            }
            String value = field.getValue();
            String found = cookie(value, BrowserPasses.COOKIE);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** The value of cookie {@code name} in one {@code Cookie} header's value, or null. */
    static String cookie(String header, String name) {
        if (header == null) {
            return null;
        }
        int at = 0;
        int length = header.length();
        while (at < length) {
            int end = header.indexOf(';', at);
            if (end < 0) {
                end = length;
            }
            int start = at;
            while (start < end && header.charAt(start) == ' ') {
                start++;
            }
            if (header.startsWith(name, start) && start + name.length() < end
                    && header.charAt(start + name.length()) == '=') {
                String value = header.substring(start + name.length() + 1, end).strip();
                return value.isEmpty() || value.length() > MAX_PASS ? null : value;
            }
            at = end + 1;
        }
        return null;
    }

    private static String joined(List<String> values) {
        return values.isEmpty() ? null : String.join(",", values);
    }
}
