package io.sluice.engine.classify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.net.Cidr;
import io.sluice.engine.net.CidrSet;
import io.sluice.engine.net.IpAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What crawler operators publish so that a site can check a crawler's claim: the address ranges it sends from
 * and the domains its reverse DNS names end in, by crawler-list name (docs/manual/classify.md, "Crawler
 * verification"). The bundled copy is {@code crawler-ranges.json} beside the crawler list, with its sources in
 * {@code crawler-ranges.NOTICE}, refreshed by {@code scripts/update-crawler-list.sh}.
 *
 * <p>Loading is all or nothing, like the crawler list: a bad block, a block wider than an operator could own (a
 * prefix shorter than {@link #MIN_IPV4_PREFIX} for IPv4 or {@link #MIN_IPV6_PREFIX} for IPv6: a {@code /0} would
 * make every address Googlebot), a missing name or a name in two entries rejects the file with a message naming the
 * entry. Immutable and thread-safe.
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

    /** The widest IPv4 block a crawler's published ranges may hold: /8. */
    public static final int MIN_IPV4_PREFIX = 8;
    /** The widest IPv6 block a crawler's published ranges may hold: /16. */
    public static final int MIN_IPV6_PREFIX = 16;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Published> byName;
    private final Instant asOf;

    private CrawlerRanges(Map<String, Published> byName, Instant asOf) {
        this.byName = Map.copyOf(byName);
        this.asOf = asOf;
    }

    /** The copy shipped with Sluice, read once per class loader (its blocks are shared by every engine). */
    public static CrawlerRanges bundled() {
        return Bundled.RANGES;
    }

    /** Nothing published for anyone: every claim fails (tests, or a deployment that wants only its policy's). */
    public static CrawlerRanges none() {
        return new CrawlerRanges(Map.of(), null);
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
        Instant oldest = null;
        for (int i = 0; i < crawlers.size(); i++) {
            JsonNode entry = crawlers.get(i);
            String where = "crawler ranges " + source + ", entry " + i;
            JsonNode operator = entry.get("operator");
            List<String> names = strings(entry.get("names"), where, "names");
            if (names.isEmpty()) {
                throw new IllegalArgumentException(where + ": names are missing");
            }
            CidrSet ranges = ranges(strings(entry.get("prefixes"), where, "prefixes"), where);
            String operatorName = operator != null && operator.isTextual() ? operator.asText() : names.get(0);
            Published published = new Published(operatorName, ranges, strings(entry.get("reverseDns"), where,
                    "reverseDns"));
            for (String name : names) {
                if (byName.putIfAbsent(name, published) != null) {
                    throw new IllegalArgumentException(where + ": " + name + " is named by an earlier entry too");
                }
            }
            Instant fetched = oldestFetched(entry.get("sources"));
            if (fetched != null && (oldest == null || fetched.isBefore(oldest))) {
                oldest = fetched;
            }
        }
        return new CrawlerRanges(byName, oldest);
    }

    /** The blocks, each checked: well formed, host bits clear, and no wider than an operator could own. */
    private static CidrSet ranges(List<String> texts, String where) {
        List<Cidr> blocks = new ArrayList<>(texts.size());
        for (String text : texts) {
            Cidr block;
            try {
                block = Cidr.parse(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
            }
            int widest = block.network().isIpv4() ? MIN_IPV4_PREFIX : MIN_IPV6_PREFIX;
            if (block.prefixLength() < widest) {
                throw new IllegalArgumentException(where + ": " + block + " is wider than /" + widest + ", the widest "
                        + "block a crawler's published ranges may hold");
            }
            blocks.add(block);
        }
        return CidrSet.of(blocks);
    }

    /**
     * The oldest date the update script wrote as a source's {@code fetched} ({@code 2026-11-25}, perhaps followed by
     * a note), at midnight UTC; null when no source has one.
     */
    private static Instant oldestFetched(JsonNode sources) {
        Instant oldest = null;
        if (sources == null || !sources.isArray()) {
            return null;
        }
        for (JsonNode source : sources) {
            JsonNode fetched = source.get("fetched");
            if (fetched == null || !fetched.isTextual() || fetched.asText().length() < 10) {
                continue;
            }
            try {
                Instant day = LocalDate.parse(fetched.asText().substring(0, 10)).atStartOfDay(ZoneOffset.UTC)
                        .toInstant();
                oldest = oldest == null || day.isBefore(oldest) ? day : oldest;
            } catch (DateTimeParseException notADate) {
                // a note for people, not a date: no age from it
            }
        }
        return oldest;
    }

    /**
     * These ranges with {@code newer}'s entries in place of this one's for every name {@code newer} publishes
     * something for (an operator's fresher copy over the bundled one); dated as the older of the two.
     */
    public CrawlerRanges overlay(CrawlerRanges newer) {
        Map<String, Published> merged = new HashMap<>(byName);
        merged.putAll(newer.byName);
        Instant date = asOf == null ? newer.asOf : newer.asOf == null || asOf.isBefore(newer.asOf) ? asOf
                : newer.asOf;
        return new CrawlerRanges(merged, date);
    }

    /**
     * When this copy was taken from its publishers: the oldest {@code fetched} date of its sources (what
     * {@code scripts/update-crawler-ranges.py} writes), or null when the file carries none.
     */
    public Instant asOf() {
        return asOf;
    }

    /** Blocks published in all, each entry counted once however many names it verifies. */
    public int prefixCount() {
        Set<Published> entries = Collections.newSetFromMap(new IdentityHashMap<>());
        entries.addAll(byName.values());
        int count = 0;
        for (Published entry : entries) {
            count += entry.ranges().size();
        }
        return count;
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
