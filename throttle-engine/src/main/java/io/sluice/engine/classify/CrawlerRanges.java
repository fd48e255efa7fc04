package io.sluice.engine.classify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.IpAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What crawler operators publish so that a site can check a crawler's claim: the address ranges it sends from
 * and the domains its reverse DNS names end in, by crawler-list name (docs/manual/classify.md, "Crawler
 * verification"). The bundled copy is {@code crawler-ranges.json} beside the crawler list, with its sources in
 * {@code crawler-ranges.NOTICE}, refreshed by {@code scripts/update-crawler-list.sh}.
 *
 * <p>Loading is all or nothing, like the crawler list: a bad block, a missing name or a name in two entries
 * rejects the file with a message naming the entry. Immutable and thread-safe.
 */
public final class CrawlerRanges {

    /** Classpath location of the bundled copy. */
    public static final String RESOURCE = "/io/sluice/engine/classify/crawler-ranges.json";

    /**
     * What one crawler's operator publishes.
     *
     * @param operator   who publishes it (for messages)
     * @param ranges     the addresses it sends from; empty when only names are published
     * @param reverseDns domains its reverse DNS names end in (forward-confirmed); empty when none are published
     */
    public record Published(String operator, CidrSet ranges, List<String> reverseDns) {
        public Published {
            reverseDns = List.copyOf(reverseDns);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Published> byName;

    private CrawlerRanges(Map<String, Published> byName) {
        this.byName = Map.copyOf(byName);
    }

    /** The copy shipped with Sluice, read once per class loader (its blocks are shared by every engine). */
    public static CrawlerRanges bundled() {
        return Bundled.RANGES;
    }

    /** Nothing published for anyone: every claim fails (tests, or a deployment that wants only its policy's). */
    public static CrawlerRanges none() {
        return new CrawlerRanges(Map.of());
    }

    /**
     * Parses the bundled format: {@code {"crawlers": [{"operator", "names": [...], "reverseDns": [...],
     * "prefixes": [...]}]}}; other fields (sources, dates) are for people and the update script.
     *
     * @throws IllegalArgumentException naming the entry when the file is not valid
     */
    public static CrawlerRanges parse(InputStream in, String source) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(in);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("crawler ranges " + source + " are not JSON: " + e.getOriginalMessage(),
                    e);
        }
        JsonNode crawlers = root == null ? null : root.get("crawlers");
        if (crawlers == null || !crawlers.isArray()) {
            throw new IllegalArgumentException("crawler ranges " + source + " must have a \"crawlers\" array");
        }
        Map<String, Published> byName = new HashMap<>();
        for (int i = 0; i < crawlers.size(); i++) {
            JsonNode entry = crawlers.get(i);
            String where = "crawler ranges " + source + ", entry " + i;
            JsonNode operator = entry.get("operator");
            List<String> names = strings(entry.get("names"), where, "names");
            if (names.isEmpty()) {
                throw new IllegalArgumentException(where + ": names are missing");
            }
            CidrSet ranges;
            try {
                ranges = CidrSet.parse(strings(entry.get("prefixes"), where, "prefixes"));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
            String operatorName = operator != null && operator.isTextual() ? operator.asText() : names.get(0);
            Published published = new Published(operatorName, ranges, strings(entry.get("reverseDns"), where,
                    "reverseDns"));
            for (String name : names) {
                if (byName.putIfAbsent(name, published) != null) {
                    throw new IllegalArgumentException(where + ": " + name + " is named by an earlier entry too");
                }
            }
        }
        return new CrawlerRanges(byName);
    }

    /** What is published for the crawler-list entry named {@code crawlerName}, or null when nothing is. */
    public Published of(String crawlerName) {
        return crawlerName == null ? null : byName.get(crawlerName);
    }

    /** True when {@code address} is in the ranges published for {@code crawlerName}. */
    public boolean inRanges(String crawlerName, IpAddress address) {
        Published published = of(crawlerName);
        return published != null && published.ranges().contains(address);
    }

    /** Every crawler-list name something is published for. */
    public Set<String> names() {
        return byName.keySet();
    }

    private static List<String> strings(JsonNode node, String where, String field) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(where + ": " + field + " must be an array of strings");
        }
        List<String> out = new ArrayList<>(node.size());
        for (JsonNode element : node) {
            if (!element.isTextual() || element.asText().isBlank()) {
                throw new IllegalArgumentException(where + ": " + field + " must be an array of strings");
            }
            out.add(element.asText());
        }
        return out;
    }

    /** Lazy holder: read on first use, once. */
    private static final class Bundled {
        static final CrawlerRanges RANGES = load();

        private static CrawlerRanges load() {
            try (InputStream in = CrawlerRanges.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("crawler ranges resource missing: " + RESOURCE);
                }
                return parse(in, "bundled " + RESOURCE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
