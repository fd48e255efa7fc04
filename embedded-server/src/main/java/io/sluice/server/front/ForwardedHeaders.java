package io.sluice.server.front;

import io.sluice.engine.net.IpAddress;
import java.util.EnumSet;
import java.util.Set;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.PreEncodedHttpField;

/**
 * What the upstream is told about the client: {@code X-Forwarded-For}, {@code X-Forwarded-Proto},
 * {@code X-Forwarded-Host}, RFC 7239 {@code Forwarded} and {@code Via}, built from the address the
 * engine resolved, never from the client's own claims.
 *
 * <p>The client's forwarding headers (and {@code X-Real-IP}, and the header the policy names in
 * {@code forwardedHeader}, e.g. {@code CF-Connecting-IP}) are dropped on the way in, whoever sent
 * them: an upstream that believes {@code X-Forwarded-For} must see one value, the one Sluice decided
 * on. That value is the peer for a direct client, or the address a trusted proxy reported (the engine
 * walks the header and believes only trusted hops). Only when the engine did believe a trusted proxy
 * (the resolved address is not the peer) are that proxy's {@code X-Forwarded-Proto} and
 * {@code X-Forwarded-Host} passed on, since a TLS-terminating proxy in front knows the original scheme,
 * and the policy's header sent again, holding the address the engine resolved: an upstream that reads
 * it, as it did behind that proxy, reads Sluice's answer, never a client's own claim.
 *
 * <p>No regular expressions and no string formatting per request: the {@code Via} fields are built
 * once, the rest is concatenation of a few short strings.
 */
final class ForwardedHeaders {
    /** The request attribute under which the throttle handler leaves the client address it resolved. */
    static final String CLIENT_ADDRESS = ForwardedHeaders.class.getName() + ".clientAddress";
    /** The request attribute under which the throttle handler leaves the policy's forwarding header's name. */
    static final String POLICY_HEADER = ForwardedHeaders.class.getName() + ".policyHeader";

    private static final Set<HttpHeader> CLIENT_CLAIMS = EnumSet.of(
            HttpHeader.X_FORWARDED_FOR,
            HttpHeader.X_FORWARDED_HOST,
            HttpHeader.X_FORWARDED_PROTO,
            HttpHeader.X_FORWARDED_PORT,
            HttpHeader.X_FORWARDED_SERVER,
            HttpHeader.FORWARDED);

    private final HttpField via11;
    private final HttpField via10;

    /** @param viaName how Sluice names itself in {@code Via}, e.g. {@code sluice} */
    ForwardedHeaders(String viaName) {
        this.via11 = new PreEncodedHttpField(HttpHeader.VIA, "1.1 " + viaName);
        this.via10 = new PreEncodedHttpField(HttpHeader.VIA, "1.0 " + viaName);
    }

    /**
     * True for a header the client may have forged about where it comes from: never forwarded as sent.
     *
     * @param policyHeader the header the policy names for trusted proxies' reports, or null
     */
    static boolean isClientClaim(HttpField field, String policyHeader) {
        HttpHeader header = field.getHeader();
        if (header != null && CLIENT_CLAIMS.contains(header)) {
            return true;
        }
        return field.is("X-Real-IP") || policyHeader != null && field.is(policyHeader);
    }

    /**
     * Adds the forwarding headers to {@code upstream}.
     *
     * @param client     the headers the client (or the proxy in front) sent
     * @param peer       the TCP peer's address
     * @param resolved   the client address the engine resolved, or null when no engine ran (then the peer)
     * @param secure     whether the client's connection to Sluice is TLS
     * @param version    the client's HTTP version, for {@code Via}
     * @param policyHeader the header the policy names for trusted proxies' reports (null: none)
     */
    void add(HttpFields client, HttpFields.Mutable upstream, String peer, String resolved, boolean secure,
             HttpVersion version, String policyHeader) {
        String address = resolved == null ? peer : resolved;
        boolean fromTrustedProxy = resolved != null && !resolved.equals(peer) && !sameAddress(resolved, peer);
        String proto = secure ? "https" : "http";
        String host = client.get(HttpHeader.HOST);
        if (fromTrustedProxy) {
            proto = single(client, HttpHeader.X_FORWARDED_PROTO, proto);
            host = single(client, HttpHeader.X_FORWARDED_HOST, host);
        }
        upstream.add(HttpHeader.X_FORWARDED_FOR, address);
        upstream.add(HttpHeader.X_FORWARDED_PROTO, proto);
        if (host != null) {
            upstream.add(HttpHeader.X_FORWARDED_HOST, host);
        }
        upstream.add(HttpHeader.FORWARDED, forwarded(address, host, proto));
        upstream.add(version == HttpVersion.HTTP_1_0 ? via10 : via11);
        if (fromTrustedProxy && policyHeader != null && !isRewritten(policyHeader)) {
            upstream.add(policyHeader, address);
        }
    }

    /** True for a header this class writes anyway ({@code X-Forwarded-For}, {@code Forwarded}). */
    private static boolean isRewritten(String name) {
        return HttpHeader.X_FORWARDED_FOR.is(name) || HttpHeader.FORWARDED.is(name);
    }

    /** The one value a trusted proxy sent for {@code header} when it is sane, else {@code fallback}. */
    private static String single(HttpFields client, HttpHeader header, String fallback) {
        HttpField field = client.getField(header);
        if (field == null || client.getValuesList(header).size() != 1) {
            return fallback;
        }
        String value = field.getValue().trim();
        if (header == HttpHeader.X_FORWARDED_PROTO) {
            return "https".equalsIgnoreCase(value) ? "https" : "http".equalsIgnoreCase(value) ? "http" : fallback;
        }
        return value.isEmpty() || value.indexOf(',') >= 0 || needsEscape(value) ? fallback : value;
    }

    private static String forwarded(String address, String host, String proto) {
        StringBuilder value = new StringBuilder(64).append("for=");
        if (address.indexOf(':') >= 0) {
            value.append("\"[").append(address).append("]\"");
        } else {
            value.append(address);
        }
        if (host != null && !needsEscape(host)) {
            value.append(";host=\"").append(host).append('"');
        }
        return value.append(";proto=").append(proto).toString();
    }

    private static boolean needsEscape(String text) {
        return text.indexOf('"') >= 0 || text.indexOf('\\') >= 0;
    }

    private static boolean sameAddress(String a, String b) {
        IpAddress left = IpAddress.tryParse(a);
        return left != null && left.equals(IpAddress.tryParse(b));
    }
}
