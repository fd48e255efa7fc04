package io.sluice.server.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A configuration file in Java properties syntax ({@code key = value}; {@code key: value} and {@code key value}
 * too; {@code #} and {@code !} start a comment line; a line ending in a backslash goes on on the next), read with
 * the line each key is on, so that every later complaint can name it. One addition: a {@code #} after a blank starts
 * a comment to the end of the line ({@code max-connections = 64   # per address}), as an operator used to nginx's
 * or a shell's files writes one, where properties would make it part of the value; a {@code #} with no blank before
 * it stays in the value ({@code redis://:pa#ss@cache}), and {@code \#} writes one after a blank.
 * {@link java.util.Properties} is not used: it forgets lines and lets a second {@code key} silently replace the
 * first, which hides typos in a long file.
 *
 * <p>Keys are the server's long option names without the dashes (docs/manual/command-line.md, "Configuration
 * file"); this class knows nothing of them: see {@link ConfigValidator}.
 */
public final class ConfigFile {
    private final Path path;
    private final Map<String, Entry> entries;

    /** One {@code key = value}, and the line it starts on. */
    public record Entry(String key, String value, int line) {
    }

    private ConfigFile(Path path, Map<String, Entry> entries) {
        this.path = path;
        this.entries = entries;
    }

    /** Reads {@code path}; a key given twice, or a file that cannot be read, is an error. */
    public static ConfigFile read(Path path) throws ConfigException {
        List<String> lines;
        try {
            lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            throw new ConfigException(List.of(new ConfigProblem(path, 0, "not UTF-8 text")));
        } catch (IOException e) {
            throw new ConfigException(List.of(new ConfigProblem(path, 0, "cannot read: " + reason(e))));
        }
        return parse(path, lines);
    }

    static ConfigFile parse(Path path, List<String> lines) throws ConfigException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        List<ConfigProblem> problems = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int first = i + 1;
            String logical = lines.get(i).stripLeading();
            if (logical.isEmpty() || logical.charAt(0) == '#' || logical.charAt(0) == '!') {
                continue;
            }
            logical = withoutComment(logical);
            while (endsContinued(logical) && i + 1 < lines.size()) {
                logical = logical.substring(0, logical.length() - 1) + withoutComment(lines.get(++i).stripLeading());
            }
            if (endsContinued(logical)) {
                logical = logical.substring(0, logical.length() - 1);
            }
            Entry entry;
            try {
                entry = entry(logical, first);
            } catch (IllegalArgumentException e) {
                problems.add(new ConfigProblem(path, first, e.getMessage()));
                continue;
            }
            Entry earlier = entries.putIfAbsent(entry.key(), entry);
            if (earlier != null) {
                problems.add(new ConfigProblem(path, first, "'" + entry.key() + "' is already set on line "
                        + earlier.line() + " (give each key once; a list is comma-separated)"));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new ConfigFile(path, entries);
    }

    public Path path() {
        return path;
    }

    /** The entries in file order. */
    public List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /** The entry for {@code key}, or null when the file does not set it. */
    public Entry get(String key) {
        return entries.get(key);
    }

    /** Splits one logical line (comments and continuations done) into its key and value. */
    private static Entry entry(String line, int number) {
        StringBuilder key = new StringBuilder();
        int at = 0;
        while (at < line.length() && !isSeparator(line.charAt(at))) {
            at = appendUnescaped(line, at, key);
        }
        at = skipBlanks(line, at);
        if (at < line.length() && (line.charAt(at) == '=' || line.charAt(at) == ':')) {
            at = skipBlanks(line, at + 1);
        }
        StringBuilder value = new StringBuilder();
        while (at < line.length()) {
            at = appendUnescaped(line, at, value);
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("a value without a key: write key = value");
        }
        // Trailing blanks are invisible in an editor; a path or a URL never ends in one.
        return new Entry(key.toString(), value.toString().strip(), number);
    }

    /**
     * {@code line} without its trailing comment: from a {@code #} that follows a blank (not one a backslash escapes) to
     * the end, with the blanks before it. A line that is all comment is empty.
     */
    static String withoutComment(String line) {
        boolean afterBlank = true; // a line's start counts as one: a continuation line may be all comment
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\') {
                i++; // an escape: the next character is the value's, even a blank or a #
                afterBlank = false;
            } else if (c == '#' && afterBlank) {
                return line.substring(0, i).stripTrailing();
            } else {
                afterBlank = Character.isWhitespace(c);
            }
        }
        return line;
    }

    private static boolean isSeparator(char c) {
        return c == '=' || c == ':' || Character.isWhitespace(c);
    }

    private static int skipBlanks(String line, int from) {
        int at = from;
        while (at < line.length() && Character.isWhitespace(line.charAt(at))) {
            at++;
        }
        return at;
    }

    /** Appends the character at {@code at}, or the one its backslash escape stands for; returns where the next is. */
    private static int appendUnescaped(String line, int at, StringBuilder to) {
        if (line.charAt(at) == '\\' && at + 1 < line.length()) {
            to.append(escaped(line, at + 1));
            return skipEscape(line, at + 1);
        }
        to.append(line.charAt(at));
        return at + 1;
    }

    /** The character the escape at {@code at} (just after the backslash) stands for. */
    private static char escaped(String line, int at) {
        char c = line.charAt(at);
        switch (c) {
            case 't':
                return '\t';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 'f':
                return '\f';
            case 'u':
                if (at + 5 > line.length()) {
                    throw new IllegalArgumentException("a \\u escape needs four hex digits");
                }
                try {
                    return (char) Integer.parseInt(line.substring(at + 1, at + 5), 16);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("a \\u escape needs four hex digits, not '"
                            + line.substring(at + 1, at + 5) + "'", e);
                }
            default:
                return c;
        }
    }

    private static int skipEscape(String line, int at) {
        return line.charAt(at) == 'u' ? at + 5 : at + 1;
    }

    /** An odd number of backslashes at the end: the line goes on. */
    private static boolean endsContinued(String line) {
        int slashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            slashes++;
        }
        return slashes % 2 == 1;
    }

    private static String reason(IOException e) {
        return e instanceof NoSuchFileException ? "no such file"
                : e instanceof AccessDeniedException ? "permission denied" : e.toString();
    }
}
