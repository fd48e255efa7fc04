package io.sluice.crawl;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON for the permit API's flat objects (strings, numbers, booleans, null), so the client needs no
 * JSON library. Strict: anything else, or trailing text, is an {@link IllegalArgumentException}.
 */
final class FlatJson {
    private final String text;
    private int at;

    private FlatJson(String text) {
        this.text = text;
    }

    static String write(Map<String, ?> object) {
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, ?> entry : object.entrySet()) {
            if (json.length() > 1) {
                json.append(',');
            }
            string(json, entry.getKey());
            json.append(':');
            Object value = entry.getValue();
            if (value == null || value instanceof Boolean || value instanceof Integer || value instanceof Long) {
                json.append(value);
            } else if (value instanceof Double || value instanceof Float) {
                double number = ((Number) value).doubleValue();
                if (!Double.isFinite(number)) {
                    throw new IllegalArgumentException(entry.getKey() + " is not a finite number");
                }
                json.append(number);
            } else if (value instanceof List<?> list) {
                json.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        json.append(',');
                    }
                    string(json, String.valueOf(list.get(i)));
                }
                json.append(']');
            } else {
                string(json, value.toString());
            }
        }
        return json.append('}').toString();
    }

    private static void string(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }

    /** Numbers come back as {@code Long} when integral, else {@code Double}. */
    static Map<String, Object> read(String text) {
        FlatJson parser = new FlatJson(text);
        parser.space();
        Map<String, Object> object = parser.object();
        parser.space();
        if (parser.at != text.length()) {
            throw parser.error("text after the object");
        }
        return object;
    }

    private Map<String, Object> object() {
        Map<String, Object> object = new LinkedHashMap<>();
        expect('{');
        space();
        if (peek() == '}') {
            at++;
            return object;
        }
        while (true) {
            space();
            String key = string();
            space();
            expect(':');
            space();
            object.put(key, value());
            space();
            char next = next();
            if (next == '}') {
                return object;
            }
            if (next != ',') {
                throw error("expected , or }");
            }
        }
    }

    private Object value() {
        char c = peek();
        if (c == '"') {
            return string();
        }
        if (c == '-' || c >= '0' && c <= '9') {
            return number();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return "null".equals(word) ? null : Boolean.valueOf(word);
            }
        }
        throw error(c == '{' || c == '[' ? "nested values are not expected here" : "expected a value");
    }

    private Object number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String literal = text.substring(start, at);
        try {
            if (literal.matches("-?\\d{1,18}")) {
                return Long.parseLong(literal);
            }
            return Double.parseDouble(literal);
        } catch (NumberFormatException e) {
            throw error("bad number " + literal);
        }
    }

    private String string() {
        expect('"');
        StringBuilder value = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') {
                return value.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                value.append(c);
                continue;
            }
            char escaped = next();
            switch (escaped) {
                case '"', '\\', '/' -> value.append(escaped);
                case 'n' -> value.append('\n');
                case 'r' -> value.append('\r');
                case 't' -> value.append('\t');
                case 'b' -> value.append('\b');
                case 'f' -> value.append('\f');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    try {
                        value.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException e) {
                        throw error("bad \\u escape");
                    }
                    at += 4;
                }
                default -> throw error("bad escape \\" + escaped);
            }
        }
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private char peek() {
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        return text.charAt(at);
    }

    private char next() {
        char c = peek();
        at++;
        return c;
    }

    private void expect(char c) {
        if (next() != c) {
            at--;
            throw error("expected " + c);
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("malformed JSON at " + at + ": " + what);
    }
}
