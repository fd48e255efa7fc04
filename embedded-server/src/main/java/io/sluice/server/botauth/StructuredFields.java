package io.sluice.server.botauth;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of Structured Field Values (RFC 9651) that HTTP message signatures need: a Dictionary whose members are
 * Items or Inner Lists, with parameters, and the canonical serialisation of both (RFC 9421 builds its signature base
 * from the serialised form, not from the bytes a client sent). Strict: anything malformed is an
 * {@link IllegalArgumentException}, and the caller refuses the signature.
 */
final class StructuredFields {

    /** A bare item: a {@link String} (sf-string), a {@link Token}, a {@link Long}, a {@code byte[]} or a Boolean. */
    record Item(Object value, Map<String, Object> params) {
        Item {
            params = params == null ? Map.of() : params;
        }

        /** The value as a string (an sf-string or a token), or null. */
        String text() {
            if (value instanceof String s) {
                return s;
            }
            return value instanceof Token t ? t.name() : null;
        }

        String serialize() {
            StringBuilder out = new StringBuilder();
            bare(value, out);
            parameters(params, out);
            return out.toString();
        }
    }

    /** An sf-token (distinct from an sf-string in serialisation). */
    record Token(String name) {
    }

    /** A dictionary member: an Item, or an Inner List ({@code items} not null) with its parameters. */
    record Member(Item item, List<Item> items, Map<String, Object> params) {
        boolean isInnerList() {
            return items != null;
        }

        String serialize() {
            if (!isInnerList()) {
                return item.serialize();
            }
            StringBuilder out = new StringBuilder("(");
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    out.append(' ');
                }
                out.append(items.get(i).serialize());
            }
            out.append(')');
            parameters(params, out);
            return out.toString();
        }
    }

    /** More members than any signature header needs: a longer dictionary is refused, not walked. */
    static final int MAX_MEMBERS = 16;

    private final String input;
    private int at;

    private StructuredFields(String input) {
        this.input = input;
    }

    /** Parses a Dictionary header value (RFC 9651 section 4.2.2). */
    static Map<String, Member> dictionary(String value) {
        StructuredFields parser = new StructuredFields(value);
        Map<String, Member> members = parser.parseDictionary();
        return members;
    }

    /** Parses an Item header value (the legacy string form of {@code Signature-Agent}). */
    static Item item(String value) {
        StructuredFields parser = new StructuredFields(value);
        parser.skipSpaces();
        Item item = parser.parseItem();
        parser.skipSpaces();
        if (parser.at != parser.input.length()) {
            throw new IllegalArgumentException("text after the item");
        }
        return item;
    }

    private Map<String, Member> parseDictionary() {
        Map<String, Member> members = new LinkedHashMap<>();
        skipSpaces();
        while (at < input.length()) {
            String key = parseKey();
            Member member;
            if (at < input.length() && input.charAt(at) == '=') {
                at++;
                member = parseMember();
            } else {
                member = new Member(new Item(Boolean.TRUE, parseParameters()), null, null);
            }
            members.put(key, member);
            if (members.size() > MAX_MEMBERS) {
                throw new IllegalArgumentException("too many members");
            }
            skipOws();
            if (at >= input.length()) {
                return members;
            }
            expect(',');
            skipOws();
            if (at >= input.length()) {
                throw new IllegalArgumentException("a trailing comma");
            }
        }
        return members;
    }

    private Member parseMember() {
        if (at < input.length() && input.charAt(at) == '(') {
            at++;
            List<Item> items = new ArrayList<>();
            while (true) {
                skipSpaces();
                if (at >= input.length()) {
                    throw new IllegalArgumentException("an inner list without its end");
                }
                if (input.charAt(at) == ')') {
                    at++;
                    return new Member(null, List.copyOf(items), parseParameters());
                }
                items.add(parseItem());
                if (items.size() > 2 * MAX_MEMBERS) {
                    throw new IllegalArgumentException("too many components");
                }
                if (at < input.length() && input.charAt(at) != ' ' && input.charAt(at) != ')') {
                    throw new IllegalArgumentException("items of an inner list are separated by spaces");
                }
            }
        }
        return new Member(parseItem(), null, null);
    }

    private Item parseItem() {
        Object bare = parseBare();
        return new Item(bare, parseParameters());
    }

    private Map<String, Object> parseParameters() {
        Map<String, Object> params = new LinkedHashMap<>();
        while (at < input.length() && input.charAt(at) == ';') {
            at++;
            skipSpaces();
            String key = parseKey();
            Object value = Boolean.TRUE;
            if (at < input.length() && input.charAt(at) == '=') {
                at++;
                value = parseBare();
            }
            params.put(key, value);
            if (params.size() > MAX_MEMBERS) {
                throw new IllegalArgumentException("too many parameters");
            }
        }
        return params;
    }

    private Object parseBare() {
        if (at >= input.length()) {
            throw new IllegalArgumentException("a value is missing");
        }
        char c = input.charAt(at);
        if (c == '"') {
            return parseString();
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return parseInteger();
        }
        if (c == ':') {
            return parseBytes();
        }
        if (c == '?') {
            if (at + 1 < input.length() && (input.charAt(at + 1) == '0' || input.charAt(at + 1) == '1')) {
                at += 2;
                return input.charAt(at - 1) == '1';
            }
            throw new IllegalArgumentException("a malformed boolean");
        }
        if (c == '*' || isAlpha(c)) {
            int start = at;
            while (at < input.length() && isTokenChar(input.charAt(at))) {
                at++;
            }
            return new Token(input.substring(start, at));
        }
        throw new IllegalArgumentException("an unexpected character '" + c + "'");
    }

    private String parseString() {
        StringBuilder out = new StringBuilder();
        at++;
        while (at < input.length()) {
            char c = input.charAt(at++);
            if (c == '\\') {
                if (at >= input.length()) {
                    break;
                }
                char next = input.charAt(at++);
                if (next != '"' && next != '\\') {
                    throw new IllegalArgumentException("a bad escape in a string");
                }
                out.append(next);
            } else if (c == '"') {
                return out.toString();
            } else if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("a string holds a character it may not");
            } else {
                out.append(c);
            }
        }
        throw new IllegalArgumentException("a string without its closing quote");
    }

    private Long parseInteger() {
        int start = at;
        if (input.charAt(at) == '-') {
            at++;
        }
        int digits = at;
        while (at < input.length() && Character.isDigit(input.charAt(at))) {
            at++;
        }
        if (at == digits || at - digits > 15) {
            throw new IllegalArgumentException("a malformed integer");
        }
        if (at < input.length() && input.charAt(at) == '.') {
            throw new IllegalArgumentException("decimals are not used here");
        }
        return Long.parseLong(input.substring(start, at));
    }

    private byte[] parseBytes() {
        int end = input.indexOf(':', at + 1);
        if (end < 0) {
            throw new IllegalArgumentException("a byte sequence without its end");
        }
        String text = input.substring(at + 1, end);
        at = end + 1;
        return Base64.getDecoder().decode(text); // IllegalArgumentException when not base64
    }

    private String parseKey() {
        if (at >= input.length()) {
            throw new IllegalArgumentException("a key is missing");
        }
        char first = input.charAt(at);
        if (!(first == '*' || (first >= 'a' && first <= 'z'))) {
            throw new IllegalArgumentException("a key starts with a lowercase letter or *");
        }
        int start = at;
        while (at < input.length()) {
            char c = input.charAt(at);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*') {
                at++;
            } else {
                break;
            }
        }
        return input.substring(start, at);
    }

    private void expect(char c) {
        if (at >= input.length() || input.charAt(at) != c) {
            throw new IllegalArgumentException("'" + c + "' expected");
        }
        at++;
    }

    private void skipSpaces() {
        while (at < input.length() && input.charAt(at) == ' ') {
            at++;
        }
    }

    private void skipOws() {
        while (at < input.length() && (input.charAt(at) == ' ' || input.charAt(at) == '\t')) {
            at++;
        }
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isTokenChar(char c) {
        return c > 0x20 && c < 0x7f && "\"(),;<=>?@[\\]{}".indexOf(c) < 0 || c == ':' || c == '/';
    }

    static void parameters(Map<String, Object> params, StringBuilder out) {
        for (Map.Entry<String, Object> param : params.entrySet()) {
            out.append(';').append(param.getKey());
            if (!Boolean.TRUE.equals(param.getValue())) {
                out.append('=');
                bare(param.getValue(), out);
            }
        }
    }

    static void bare(Object value, StringBuilder out) {
        if (value instanceof String s) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\');
                }
                out.append(c);
            }
            out.append('"');
        } else if (value instanceof Token t) {
            out.append(t.name());
        } else if (value instanceof Long n) {
            out.append(n);
        } else if (value instanceof byte[] bytes) {
            out.append(':').append(Base64.getEncoder().encodeToString(bytes)).append(':');
        } else if (value instanceof Boolean b) {
            out.append(b ? "?1" : "?0");
        } else {
            throw new IllegalArgumentException("not a bare item: " + value);
        }
    }
}
