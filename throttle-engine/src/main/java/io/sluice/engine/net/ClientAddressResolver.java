package io.sluice.engine.net;

import io.sluice.engine.Request;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides which IP address a request comes from, so that a client cannot choose its own by sending
 * a header.
 *
 * <p>The rule, exactly:
 * <ol>
 *   <li>The peer (the TCP connection's address) is the answer unless it is a trusted proxy.</li>
 *   <li>When it is, the forwarding header is walked from the right (the hop nearest to us). The current
 *       answer starts as the peer. Each entry is parsed: if it is an address that is <em>not</em> a
 *       trusted proxy, it is the client and the walk ends; if it is a trusted proxy, it becomes the
 *       current answer and the walk goes on leftwards.</li>
 *   <li>A malformed entry ({@code unknown}, an obfuscated {@code _name}, garbage), an element of
 *       {@code Forwarded} without {@code for=}, or more than {@link #MAX_HOPS} entries stops the walk:
 *       the answer is the current one, which is always the peer or a trusted hop. Empty list elements
 *       ({@code a,,b}) are skipped. A {@code Forwarded} header that cannot be tokenised (an unclosed
 *       quote) is malformed as a whole.</li>
 *   <li>If every entry is trusted, the leftmost is the answer.</li>
 * </ol>
 * Nothing to the left of the first untrusted hop is ever read: that part of the header was written
 * by the client, or by hops we have no reason to believe.
 *
 * <p>Which header: exactly one, the one the operator names in the policy (the header the trusted proxies set:
 * {@code X-Forwarded-For} by default, RFC 7239 {@code Forwarded}, or a single-address header such as
 * {@code CF-Connecting-IP}). The caller passes only that header's value, so any other forwarding header a
 * client sends is never read: nginx and HAProxy append to {@code X-Forwarded-For} and pass a client's own
 * {@code Forwarded} through untouched, and believing it would let the client choose its address.
 *
 * <p>Entry syntax. {@code X-Forwarded-For} (and any header other than {@code Forwarded}): {@code 192.0.2.1},
 * {@code 192.0.2.1:8080}, {@code 2001:db8::1}, {@code [2001:db8::1]}, {@code [2001:db8::1]:8080}. {@code Forwarded}
 * (RFC 7239): the {@code for} parameter, token or quoted string, {@code 192.0.2.1[:port]} or
 * {@code "[2001:db8::1][:port]"}; IPv6 must be bracketed, as the RFC says. Parsing never uses DNS.
 *
 * <p>Thread-safe and immutable; a new one is built when the policy's trusted proxies change.
 */
public final class ClientAddressResolver {

    /** At most this many header entries are examined, so a huge header costs bounded work. */
    public static final int MAX_HOPS = 32;

    private final CidrSet trustedProxies;
    private final boolean rfc7239;

    /**
     * @param header the forwarding header the trusted proxies set; {@code Forwarded} (any case) is parsed as
     *               RFC 7239, any other as a comma-separated list of addresses
     */
    public ClientAddressResolver(CidrSet trustedProxies, String header) {
        if (trustedProxies == null || header == null) {
            throw new IllegalArgumentException("trusted proxies and the forwarding header are required");
        }
        this.trustedProxies = trustedProxies;
        this.rfc7239 = "Forwarded".equalsIgnoreCase(header);
    }

    /** The client address of {@code request}; see {@link #resolve(String, String)}. */
    public IpAddress resolve(Request request) {
        return resolve(request.peerAddress(), request.forwardedFor());
    }

    /**
     * The client address.
     *
     * @param peerAddress the TCP peer, an IP literal
     * @param header      the raw value(s) of the policy's forwarding header joined by commas, or null
     * @throws IllegalArgumentException when {@code peerAddress} is not an IP literal (a caller error:
     *                                  the server always knows its peer)
     */
    public IpAddress resolve(String peerAddress, String header) {
        IpAddress peer = IpAddress.parse(peerAddress);
        if (header == null || header.isBlank() || !trustedProxies.contains(peer)) {
            return peer;
        }
        return rfc7239 ? walkForwarded(peer, header) : walkXForwardedFor(peer, header);
    }

    private IpAddress walkXForwardedFor(IpAddress peer, String header) {
        IpAddress current = peer;
        int end = header.length();
        int hops = 0;
        while (end > 0) {
            int comma = header.lastIndexOf(',', end - 1);
            int from = comma + 1;
            int to = end;
            end = comma < 0 ? 0 : comma;
            while (from < to && isSpace(header.charAt(from))) {
                from++;
            }
            while (to > from && isSpace(header.charAt(to - 1))) {
                to--;
            }
            if (from == to) {
                continue;
            }
            if (++hops > MAX_HOPS) {
                return current;
            }
            IpAddress hop = parseNode(header, from, to, true);
            if (hop == null) {
                return current;
            }
            if (!trustedProxies.contains(hop)) {
                return hop;
            }
            current = hop;
        }
        return current;
    }

    private IpAddress walkForwarded(IpAddress peer, String header) {
        List<String> nodes = ForwardedHeader.forNodes(header);
        if (nodes == null) {
            return peer;
        }
        IpAddress current = peer;
        int hops = 0;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            String node = nodes.get(i);
            if (node != null && node.isEmpty()) {
                continue; // an empty list element
            }
            if (++hops > MAX_HOPS || node == null) {
                return current;
            }
            IpAddress hop = parseNode(node, 0, node.length(), false);
            if (hop == null) {
                return current;
            }
            if (!trustedProxies.contains(hop)) {
                return hop;
            }
            current = hop;
        }
        return current;
    }

    /**
     * Parses a node: an address with an optional port. Bare IPv6 (several colons, no brackets) is
     * accepted only when {@code bareIpv6} (X-Forwarded-For practice; RFC 7239 requires brackets).
     */
    static IpAddress parseNode(CharSequence text, int from, int to, boolean bareIpv6) {
        if (from >= to) {
            return null;
        }
        if (text.charAt(from) == '[') {
            int close = -1;
            for (int i = from + 1; i < to; i++) {
                if (text.charAt(i) == ']') {
                    close = i;
                    break;
                }
            }
            if (close < 0 || (close + 1 < to && !validPort(text, close + 1, to))) {
                return null;
            }
            // brackets hold IPv6 only (an IPv4-mapped one is still written with colons)
            IpAddress address = IpAddress.parse(text, from + 1, close);
            return address != null && hasColon(text, from + 1, close) ? address : null;
        }
        int firstColon = -1;
        int colons = 0;
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == ':') {
                colons++;
                if (firstColon < 0) {
                    firstColon = i;
                }
            }
        }
        if (colons == 0) {
            return IpAddress.parse(text, from, to);
        }
        if (colons == 1) {
            if (!validPort(text, firstColon, to)) {
                return null;
            }
            long v4 = IpAddress.parseIpv4(text, from, firstColon);
            return v4 < 0 ? null : IpAddress.ofIpv4((int) v4);
        }
        return bareIpv6 ? IpAddress.parse(text, from, to) : null;
    }

    /** {@code text[from]} is ':' followed by a port 0-65535 (1-5 digits), or an RFC 7239 obfuscated port. */
    private static boolean validPort(CharSequence text, int from, int to) {
        if (text.charAt(from) != ':' || to - from < 2) {
            return false;
        }
        if (text.charAt(from + 1) == '_') {
            for (int i = from + 2; i < to; i++) {
                char c = text.charAt(i);
                if (!(Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '_' || c == '-')) {
                    return false;
                }
            }
            return to - from > 2;
        }
        if (to - from > 6) {
            return false;
        }
        int port = 0;
        for (int i = from + 1; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }

    private static boolean hasColon(CharSequence text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == ':') {
                return true;
            }
        }
        return false;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /** RFC 7239 tokenising, kept apart from the walk. */
    static final class ForwardedHeader {
        private ForwardedHeader() {
        }

        /**
         * The {@code for} value of each element, left to right: "" for an empty element, null for an
         * element without (or with an unusable) {@code for}. Returns null when the header cannot be
         * tokenised at all.
         */
        static List<String> forNodes(String header) {
            List<String> out = new ArrayList<>();
            int i = 0;
            int n = header.length();
            String forValue = null;
            boolean elementEmpty = true;
            boolean elementBad = false;
            while (true) {
                while (i < n && isSpace(header.charAt(i))) {
                    i++;
                }
                if (i >= n || header.charAt(i) == ',') {
                    out.add(elementEmpty ? "" : elementBad ? null : forValue);
                    if (i >= n) {
                        return out;
                    }
                    i++;
                    forValue = null;
                    elementEmpty = true;
                    elementBad = false;
                    continue;
                }
                if (header.charAt(i) == ';') {
                    i++;
                    continue;
                }
                elementEmpty = false;
                int nameStart = i;
                while (i < n && isToken(header.charAt(i))) {
                    i++;
                }
                if (i == nameStart || i >= n || header.charAt(i) != '=') {
                    return null;
                }
                String name = header.substring(nameStart, i);
                i++;
                String value;
                if (i < n && header.charAt(i) == '"') {
                    StringBuilder quoted = new StringBuilder();
                    i++;
                    boolean closed = false;
                    while (i < n) {
                        char c = header.charAt(i++);
                        if (c == '\\' && i < n) {
                            quoted.append(header.charAt(i++));
                        } else if (c == '"') {
                            closed = true;
                            break;
                        } else {
                            quoted.append(c);
                        }
                    }
                    if (!closed) {
                        return null;
                    }
                    value = quoted.toString();
                } else {
                    int valueStart = i;
                    while (i < n && isToken(header.charAt(i))) {
                        i++;
                    }
                    value = header.substring(valueStart, i);
                }
                while (i < n && isSpace(header.charAt(i))) {
                    i++;
                }
                if (i < n && header.charAt(i) != ';' && header.charAt(i) != ',') {
                    return null;
                }
                if (name.equalsIgnoreCase("for")) {
                    if (forValue != null || value.isEmpty()) {
                        elementBad = true; // two for= in one element: ambiguous
                    }
                    forValue = value;
                }
            }
        }

        private static boolean isToken(char c) {
            return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
        }
    }
}
