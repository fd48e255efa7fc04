package io.sluice.engine.classify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The maintained crawler list ({@code crawler-user-agents}, MIT, by Martin Monperrus and contributors),
 * loaded from the copy bundled as a resource or from an operator's newer file of the same format: a
 * JSON array of objects with {@code pattern} (required), {@code url}, {@code tags} and {@code instances}.
 *
 * <p>Loading is all or nothing: a file with a bad entry (missing or uncompilable pattern, a tag that
 * is not a string) is rejected whole with a message naming the entry, so a bad update cannot leave the
 * classifier half-loaded. An entry without tags gets none, so it is never a {@code CRAWLER}: the list
 * tags every entry today, and an untagged newcomer is safer treated as a bot until someone tags it.
 */
public final class CrawlerList {

    /** Classpath location of the bundled copy (its licence is {@code crawler-user-agents.LICENSE} beside it). */
    public static final String RESOURCE = "/io/sluice/engine/classify/crawler-user-agents.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<CrawlerEntry> entries;
    private final List<Pattern> patterns;
    private final String source;

    private CrawlerList(List<CrawlerEntry> entries, List<Pattern> patterns, String source) {
        this.entries = List.copyOf(entries);
        this.patterns = List.copyOf(patterns);
        this.source = source;
    }

    /** The copy shipped with Sluice. */
    public static CrawlerList bundled() {
        try (InputStream in = CrawlerList.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("crawler list resource missing: " + RESOURCE);
            }
            return parse(in, "bundled " + RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An operator's copy.
     *
     * @throws IllegalArgumentException when the file is not a valid list (message names the entry)
     * @throws UncheckedIOException     when it cannot be read
     */
    public static CrawlerList fromFile(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read crawler list " + file, e);
        }
    }

    /** Parses a list in the published JSON format; {@code source} names it in messages. */
    public static CrawlerList parse(InputStream in, String source) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(in);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("crawler list " + source + " is not JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("crawler list " + source + " must be a JSON array of entries");
        }
        List<CrawlerEntry> entries = new ArrayList<>(root.size());
        List<Pattern> patterns = new ArrayList<>(root.size());
        for (int i = 0; i < root.size(); i++) {
            JsonNode node = root.get(i);
            JsonNode patternNode = node.get("pattern");
            if (patternNode == null || !patternNode.isTextual() || patternNode.asText().isEmpty()) {
                throw new IllegalArgumentException("crawler list " + source + ", entry " + i + ": pattern is missing");
            }
            String regex = patternNode.asText();
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("crawler list " + source + ", entry " + i + ": bad pattern '"
                        + regex + "': " + e.getDescription(), e);
            }
            List<String> tags = strings(node.get("tags"), source, i, "tags");
            List<String> instances = strings(node.get("instances"), source, i, "instances");
            JsonNode url = node.get("url");
            String urlText = url != null && url.isTextual() ? url.asText() : null;
            String name = readableName(pattern, instances, urlText);
            entries.add(new CrawlerEntry(i, regex, urlText, tags, instances, name));
            patterns.add(pattern);
        }
        return new CrawlerList(entries, patterns, source);
    }

    public List<CrawlerEntry> entries() {
        return entries;
    }

    /** The compiled pattern of each entry, in list order. */
    public List<Pattern> patterns() {
        return patterns;
    }

    /** Where the list came from (for logs and the snapshot). */
    public String source() {
        return source;
    }

    public int size() {
        return entries.size();
    }

    private static List<String> strings(JsonNode node, String source, int index, String field) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("crawler list " + source + ", entry " + index + ": " + field
                    + " must be an array of strings");
        }
        List<String> out = new ArrayList<>(node.size());
        for (JsonNode element : node) {
            if (!element.isTextual()) {
                throw new IllegalArgumentException("crawler list " + source + ", entry " + index + ": " + field
                        + " must be an array of strings");
            }
            out.add(element.asText());
        }
        return out;
    }

    /**
     * A name a person recognises: what the pattern matches in the entry's first example ("Googlebot/"
     * gives "Googlebot"), trimmed of punctuation and cut at the first space when long; failing that,
     * the URL's host; failing that, the pattern itself.
     */
    static String readableName(Pattern pattern, List<String> instances, String url) {
        for (String instance : instances) {
            Matcher m = pattern.matcher(instance);
            if (m.find()) {
                String name = trim(m.group());
                if (name.length() > 30 && name.indexOf(' ') > 0) {
                    name = trim(name.substring(0, name.indexOf(' ')));
                }
                if (!name.isEmpty()) {
                    return name;
                }
            }
        }
        if (url != null) {
            String host = url.replaceFirst("^[a-zA-Z]+://", "").replaceFirst("[/:?#].*$", "");
            if (!host.isEmpty()) {
                return host;
            }
        }
        return pattern.pattern();
    }

    private static String trim(String text) {
        int from = 0;
        int to = text.length();
        while (from < to && !Character.isLetterOrDigit(text.charAt(from))) {
            from++;
        }
        while (to > from && !Character.isLetterOrDigit(text.charAt(to - 1))) {
            to--;
        }
        return text.substring(from, to);
    }
}
