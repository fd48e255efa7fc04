package io.sluice.server.botauth;

import io.sluice.engine.SignedMessage;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds the signature base of RFC 9421 (section 2.5) for one signature of a request: one line per covered
 * component, {@code "name";params: value}, then the {@code @signature-params} line. Derived components of a request
 * are supported ({@code @method}, {@code @authority}, {@code @scheme}, {@code @path}, {@code @query},
 * {@code @target-uri}, {@code @request-target}); header fields by name, and one member of a Dictionary header with
 * {@code key} (how the webbotauth draft covers {@code Signature-Agent}). Anything else ({@code @query-param},
 * {@code bs}, {@code req}, {@code tr}, a component named twice, a header the request lacks) cannot be verified here:
 * {@link IllegalArgumentException}, and the signature is refused.
 */
final class SignatureBase {

    private SignatureBase() {
    }

    /**
     * @param components the signature's covered components, in order (its Signature-Input member's inner list)
     * @param params     the serialised {@code @signature-params} value (the whole member, list and parameters)
     */
    static String of(SignedMessage message, List<StructuredFields.Item> components, String params) {
        StringBuilder base = new StringBuilder(256);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (StructuredFields.Item component : components) {
            if (!(component.value() instanceof String name)) {
                throw new IllegalArgumentException("a component identifier is a string");
            }
            String identifier = component.serialize();
            if (!seen.add(identifier)) {
                throw new IllegalArgumentException("component " + identifier + " is covered twice");
            }
            if (!name.equals(name.toLowerCase(Locale.ROOT)) || name.equals("@signature-params")) {
                throw new IllegalArgumentException("component " + identifier + " is not allowed");
            }
            base.append(identifier).append(": ").append(value(message, name, component.params())).append('\n');
        }
        base.append("\"@signature-params\": ").append(params);
        return base.toString();
    }

    private static String value(SignedMessage message, String name, Map<String, Object> params) {
        if (name.startsWith("@")) {
            if (!params.isEmpty()) {
                throw new IllegalArgumentException("parameters on " + name + " are not supported");
            }
            return derived(message, name);
        }
        String field = message.header(name);
        if (field == null) {
            throw new IllegalArgumentException("the request has no " + name + " header");
        }
        if (params.isEmpty()) {
            return field;
        }
        if (params.size() == 1 && params.get("key") instanceof String key) {
            StructuredFields.Member member = StructuredFields.dictionary(field).get(key);
            if (member == null) {
                throw new IllegalArgumentException(name + " has no member " + key);
            }
            return member.serialize();
        }
        if (params.size() == 1 && Boolean.TRUE.equals(params.get("sf"))) {
            return reserialize(field);
        }
        throw new IllegalArgumentException("parameters " + params.keySet() + " on " + name + " are not supported");
    }

    private static String reserialize(String field) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, StructuredFields.Member> member : StructuredFields.dictionary(field).entrySet()) {
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(member.getKey()).append('=').append(member.getValue().serialize());
        }
        return out.toString();
    }

    private static String derived(SignedMessage message, String name) {
        String query = message.query() == null ? "" : "?" + message.query();
        String path = message.path() == null || message.path().isEmpty() ? "/" : message.path();
        return switch (name) {
            case "@method" -> message.method();
            case "@authority" -> authority(message);
            case "@scheme" -> message.scheme().toLowerCase(Locale.ROOT);
            case "@path" -> path;
            case "@query" -> query.isEmpty() ? "?" : query;
            case "@request-target" -> path + query;
            case "@target-uri" -> message.scheme().toLowerCase(Locale.ROOT) + "://" + authority(message) + path
                    + query;
            default -> throw new IllegalArgumentException("component " + name + " is not supported");
        };
    }

    /** The authority as RFC 9421 section 2.2.3 wants it: lowercase, without the scheme's default port. */
    static String authority(SignedMessage message) {
        String authority = message.authority();
        if (authority == null || authority.isEmpty()) {
            throw new IllegalArgumentException("the request has no authority");
        }
        String lower = authority.toLowerCase(Locale.ROOT);
        String defaultPort = "https".equalsIgnoreCase(message.scheme()) ? ":443" : ":80";
        return lower.endsWith(defaultPort) ? lower.substring(0, lower.length() - defaultPort.length()) : lower;
    }
}
