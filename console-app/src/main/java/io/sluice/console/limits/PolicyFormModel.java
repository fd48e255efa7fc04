package io.sluice.console.limits;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every field of the policy as the limits form shows it: text in, text out. The policy is edited as
 * its JSON tree, field by field at the field's JSON path, so the server's errors (which name those
 * paths) land next to the right input, and a field the form does not know (bans, pause) passes
 * through untouched. Lists of records (routes, escalation rules) are {@link Table}s: one row per
 * element, one text per column, and an error at {@code routes[2].weight} lands in that cell.
 * No toolkit needed, so it is tested without one.
 */
public final class PolicyFormModel {
    private static final ObjectMapper JSON = PolicyJson.mapper();

    /** How a field's text is read. */
    public enum Kind {
        /** A whole number. */
        INTEGER,
        /** A number that may have a fraction. */
        DECIMAL,
        /** "true" or "false" (a check box). */
        BOOLEAN,
        /** Free text; empty means none. */
        TEXT,
        /** Strings separated by commas or new lines. */
        LIST,
        /** One allow-list entry per line: {@code ip 10.0.0.0/8 | exempt-from-pause # office}. */
        ALLOW,
        /** Three whole numbers "softHits, delayMillisPerHit, maxDelayMillis", or empty for no delay. */
        PROGRESSIVE,
        /** One of a column's choices (a table cell). */
        CHOICE,
        /** A hit-stack limit "maxHits, windowSeconds", or empty for none (a route's own limit). */
        HIT_LIMIT
    }

    /**
     * One input of the form.
     *
     * @param path  the JSON path in the policy, e.g. {@code governor.maxRate}
     * @param group the section it is shown in
     */
    public record Field(String path, String group, String label, String unit, Kind kind) {
        public String id() {
            return path.replace('.', '-');
        }
    }

    /**
     * One column of a table.
     *
     * @param name    the element's JSON field, e.g. {@code weight}
     * @param choices the values a {@link Kind#CHOICE} column offers (else empty)
     */
    public record Column(String name, String label, String unit, Kind kind, List<String> choices) {
        Column(String name, String label, String unit, Kind kind) {
            this(name, label, unit, kind, List.of());
        }
    }

    /**
     * A list of records edited as rows.
     *
     * @param path  the list's JSON path, e.g. {@code routes}
     * @param group the section it is shown in
     */
    public record Table(String path, String group, String help, List<Column> columns) {
        /** A column by its name. */
        public Column column(String name) {
            return columns.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
        }

        /** The texts of a new row: the first choice of each choice column, empty elsewhere. */
        public Map<String, String> newRow() {
            Map<String, String> row = new LinkedHashMap<>();
            columns.forEach(c -> row.put(c.name(), c.kind() == Kind.CHOICE ? c.choices().get(0)
                    : c.kind() == Kind.INTEGER && c.name().equals("weight") ? "1" : ""));
            return row;
        }
    }

    /** The proposed policy, or the fields whose text could not be read (nothing is sent then). */
    public record Built(Policy policy, List<FieldError> errors) {
    }

    private static final List<Field> FIELDS = fields();

    private static List<Field> fields() {
        List<Field> list = new ArrayList<>(List.of(
                new Field("hitStack.maxHits", "Hit stack", "Hits allowed per window", "hits", Kind.INTEGER),
                new Field("hitStack.windowSeconds", "Hit stack", "Window", "s (1-60)", Kind.INTEGER),
                new Field("perAddress.maxHits", "Per address (all user agents of one address)",
                        "Hits allowed per window", "hits", Kind.INTEGER),
                new Field("perAddress.windowSeconds", "Per address (all user agents of one address)", "Window",
                        "s (1-60)", Kind.INTEGER),
                new Field("perAddress.maxConcurrent", "Per address (all user agents of one address)",
                        "Requests in flight per address", "requests", Kind.INTEGER),
                new Field("perAddress.ipv4Prefix", "Per address (all user agents of one address)", "IPv4 address is",
                        "prefix bits (8-32)", Kind.INTEGER),
                new Field("perAddress.ipv6Prefix", "Per address (all user agents of one address)", "IPv6 address is",
                        "prefix bits (32-128)", Kind.INTEGER),
                new Field("crawlers.perCrawlerSeconds", "Crawlers", "Gap per crawler", "s", Kind.INTEGER),
                new Field("crawlers.allCrawlersSeconds", "Crawlers", "Gap across crawlers", "s", Kind.INTEGER),
                new Field("crawlers.verifySearchEngines", "Crawlers", "Verify crawlers (published ranges, reverse DNS)",
                        "", Kind.BOOLEAN),
                new Field("load.maxActive", "Load", "Upstream requests in flight", "requests", Kind.INTEGER),
                new Field("load.maxWaiting", "Load", "Deferred requests waiting", "requests", Kind.INTEGER),
                new Field("load.deferMillis", "Load", "Deferral wait", "ms", Kind.INTEGER),
                new Field("perClient.maxConcurrent", "Per client", "Requests in flight per client", "requests",
                        Kind.INTEGER)));
        for (RequestClass requestClass : RequestClass.values()) {
            list.add(new Field("progressiveDelay." + requestClass.name(), "Progressive delay", requestClass.name(),
                    "soft hits, ms per hit, max ms (empty: off)", Kind.PROGRESSIVE));
        }
        list.addAll(List.of(
                new Field("refusal.retryAfterSeconds", "Refusal", "Default Retry-After", "s", Kind.INTEGER),
                new Field("refusal.infoUrl", "Refusal", "Link on refusal pages", "http(s) URL or empty", Kind.TEXT),
                new Field("refusal.bannedMessage", "Refusal", "What a banned client is told",
                        "empty: the standard sentence", Kind.TEXT),
                new Field("classification.crawlerTags", "Classification", "Crawler-list tags that are CRAWLER",
                        "comma-separated", Kind.LIST),
                new Field("trustedProxies", "Network", "Trusted proxies", "addresses or CIDRs, comma-separated",
                        Kind.LIST),
                new Field("forwardedHeader", "Network", "Header trusted proxies set",
                        "e.g. X-Forwarded-For, Forwarded", Kind.TEXT),
                new Field("allow", "Network", "Allow-list",
                        "one per line: ip|agent VALUE [| exempt-from-pause] [# note]", Kind.ALLOW),
                new Field("governor.initialRate", "Crawl governor", "New domain's rate", "req/s", Kind.DECIMAL),
                new Field("governor.minRate", "Crawl governor", "Lowest rate", "req/s", Kind.DECIMAL),
                new Field("governor.maxRate", "Crawl governor", "Highest rate", "req/s", Kind.DECIMAL),
                new Field("governor.increasePerSecond", "Crawl governor", "Additive increase", "req/s per s",
                        Kind.DECIMAL),
                new Field("governor.decreaseFactor", "Crawl governor", "Multiplicative decrease", "factor (0-1)",
                        Kind.DECIMAL),
                new Field("governor.latencyInflation", "Crawl governor", "Latency inflation signal",
                        "x baseline (0: off)", Kind.DECIMAL),
                new Field("governor.latencyFloorMillis", "Crawl governor", "Latency rise never a signal below",
                        "ms", Kind.INTEGER),
                new Field("governor.latencyWindow", "Crawl governor", "Latency window", "answers", Kind.INTEGER),
                new Field("governor.latencyBaselineWindows", "Crawl governor", "Latency baseline over",
                        "windows", Kind.INTEGER),
                new Field("governor.slowStartDoublingSeconds", "Crawl governor", "Slow start doubles every",
                        "s (0: no slow start)", Kind.DECIMAL),
                new Field("governor.backoffBaseMillis", "Crawl governor", "429 backoff base", "ms", Kind.INTEGER),
                new Field("governor.backoffMaxMillis", "Crawl governor", "429 backoff cap", "ms", Kind.INTEGER),
                new Field("governor.backoffForgiveSeconds", "Crawl governor", "Backoff forgiven after", "s quiet",
                        Kind.INTEGER),
                new Field("governor.breakerErrorPercent", "Crawl governor", "Breaker error share", "%", Kind.INTEGER),
                new Field("governor.breakerMinCalls", "Crawl governor", "Breaker judges after", "responses",
                        Kind.INTEGER),
                new Field("governor.breakerOpenSeconds", "Crawl governor", "Breaker open for", "s", Kind.INTEGER),
                new Field("governor.breakerTrialRequests", "Crawl governor", "Half-open trials", "requests",
                        Kind.INTEGER),
                new Field("governor.giveUpAfterErrors", "Crawl governor", "Give up after errors in a row", "errors",
                        Kind.INTEGER),
                new Field("governor.maxHoldMillis", "Crawl governor", "Longest held permit call", "ms",
                        Kind.INTEGER)));
        return List.copyOf(list);
    }

    private static final List<Table> TABLES = List.of(
            new Table("routes", "Routes", "the first route that matches a request decides; no match weighs 1",
                    List.of(new Column("match", "Match", "", Kind.CHOICE, List.of("prefix", "glob", "regex")),
                            new Column("path", "Path", "prefix, glob or RE2", Kind.TEXT),
                            new Column("query", "Query", "name or name=value", Kind.TEXT),
                            new Column("methods", "Methods", "any when empty", Kind.LIST),
                            new Column("classes", "Classes", "any when empty", Kind.LIST),
                            new Column("secFetchDest", "Sec-Fetch-Dest", "no condition when empty", Kind.LIST),
                            new Column("weight", "Weight", "hits", Kind.INTEGER),
                            new Column("limits", "Own limit", "hits, window s", Kind.HIT_LIMIT),
                            new Column("note", "Note", "why", Kind.TEXT))),
            new Table("escalation", "Escalation", "a client or address refused N times within M seconds is banned",
                    List.of(new Column("scope", "Scope", "", Kind.CHOICE, List.of("client", "address")),
                            new Column("refusals", "Refusals", "N", Kind.INTEGER),
                            new Column("withinSeconds", "Within", "s", Kind.INTEGER),
                            new Column("banSeconds", "Ban for", "s", Kind.INTEGER),
                            new Column("growth", "Growth", "x per repeat", Kind.DECIMAL),
                            new Column("maxBanSeconds", "Longest ban", "s", Kind.INTEGER))));

    private PolicyFormModel() {
    }

    public static List<Field> all() {
        return FIELDS;
    }

    public static List<Table> tables() {
        return TABLES;
    }

    /** The rows of every table for {@code policy}: table path to rows of column texts. */
    public static Map<String, List<Map<String, String>>> rows(Policy policy) {
        ObjectNode tree = JSON.valueToTree(policy);
        Map<String, List<Map<String, String>>> rows = new LinkedHashMap<>();
        for (Table table : TABLES) {
            List<Map<String, String>> list = new ArrayList<>();
            JsonNode elements = node(tree, table.path());
            if (elements != null) {
                for (JsonNode element : elements) {
                    Map<String, String> row = new LinkedHashMap<>();
                    for (Column column : table.columns()) {
                        row.put(column.name(), text(column.kind(), element.get(column.name())));
                    }
                    list.add(row);
                }
            }
            rows.put(table.path(), list);
        }
        return rows;
    }

    /** The text each field shows for {@code policy}. */
    public static Map<String, String> texts(Policy policy) {
        ObjectNode tree = JSON.valueToTree(policy);
        Map<String, String> texts = new LinkedHashMap<>();
        for (Field field : FIELDS) {
            texts.put(field.path(), text(field.kind(), node(tree, field.path())));
        }
        return texts;
    }

    /** {@code base} with every field set from {@code texts} (its tables as they are). */
    public static Built build(Policy base, Map<String, String> texts) {
        return build(base, texts, rows(base));
    }

    /**
     * {@code base} with every field set from {@code texts} and every table from {@code rows}; unreadable text is
     * reported at its field or cell ({@code routes[1].weight}), not guessed.
     */
    public static Built build(Policy base, Map<String, String> texts, Map<String, List<Map<String, String>>> rows) {
        ObjectNode tree = JSON.valueToTree(base);
        List<FieldError> errors = new ArrayList<>();
        for (Field field : FIELDS) {
            String text = texts.getOrDefault(field.path(), "").trim();
            try {
                set(tree, field.path(), value(field.kind(), text));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError(field.path(), e.getMessage()));
            }
        }
        for (Table table : TABLES) {
            ArrayNode elements = JSON.getNodeFactory().arrayNode();
            List<Map<String, String>> tableRows = rows.getOrDefault(table.path(), List.of());
            for (int i = 0; i < tableRows.size(); i++) {
                ObjectNode element = elements.addObject();
                for (Column column : table.columns()) {
                    String text = tableRows.get(i).getOrDefault(column.name(), "").trim();
                    try {
                        JsonNode value = value(column.kind(), text);
                        if (column.kind() == Kind.CHOICE && !text.isEmpty() && !column.choices().contains(text)) {
                            throw new IllegalArgumentException("one of " + String.join(", ", column.choices()));
                        }
                        element.set(column.name(), value == null ? JSON.getNodeFactory().nullNode() : value);
                    } catch (IllegalArgumentException e) {
                        errors.add(new FieldError(table.path() + "[" + i + "]." + column.name(), e.getMessage()));
                    }
                }
            }
            set(tree, table.path(), elements);
        }
        if (!errors.isEmpty()) {
            return new Built(null, errors);
        }
        try {
            return new Built(JSON.treeToValue(tree, Policy.class), List.of());
        } catch (JsonProcessingException e) {
            return new Built(null, List.of(new FieldError("", e.getOriginalMessage())));
        }
    }

    /** The form field a server error belongs to: the one whose path is the longest prefix of the error's. */
    public static String fieldFor(String errorPath) {
        String best = null;
        for (Field field : FIELDS) {
            String path = field.path();
            boolean prefix = errorPath.equals(path) || errorPath.startsWith(path + ".")
                    || errorPath.startsWith(path + "[");
            if (prefix && (best == null || path.length() > best.length())) {
                best = path;
            }
        }
        return best;
    }

    /**
     * Where in a table an error belongs.
     *
     * @param row    the row, or -1 for the table as a whole ("at most 64 routes")
     * @param column the column, or null for the row as a whole
     */
    public record Cell(String table, int row, String column) {
    }

    private static final Pattern CELL = Pattern.compile(
            "([A-Za-z]+)(?:\\[(\\d+)\\](?:\\.([A-Za-z]+))?)?.*");

    /** The table cell a server error belongs to ({@code routes[1].limits.maxHits}: row 1, column limits), if any. */
    public static Optional<Cell> cellFor(String errorPath) {
        Matcher m = CELL.matcher(errorPath);
        if (!m.matches() || TABLES.stream().noneMatch(t -> t.path().equals(m.group(1)))) {
            return Optional.empty();
        }
        Table table = TABLES.stream().filter(t -> t.path().equals(m.group(1))).findFirst().orElseThrow();
        int row = m.group(2) == null ? -1 : Integer.parseInt(m.group(2));
        String column = m.group(3) != null && table.columns().stream().anyMatch(c -> c.name().equals(m.group(3)))
                ? m.group(3) : null;
        return Optional.of(new Cell(table.path(), row, column));
    }

    private static String text(Kind kind, JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "";
        }
        return switch (kind) {
            case LIST -> String.join(", ", strings(node));
            case ALLOW -> {
                List<String> lines = new ArrayList<>();
                for (JsonNode entry : node) {
                    String line = entry.path("type").asText().toLowerCase(Locale.ROOT) + " "
                            + entry.path("value").asText();
                    if (entry.path("exemptFromPause").asBoolean()) {
                        line += " | exempt-from-pause";
                    }
                    if (entry.hasNonNull("note") && !entry.path("note").asText().isEmpty()) {
                        line += " # " + entry.path("note").asText();
                    }
                    lines.add(line);
                }
                yield String.join("\n", lines);
            }
            case PROGRESSIVE -> node.path("softHits").asInt() + ", " + node.path("delayMillisPerHit").asInt() + ", "
                    + node.path("maxDelayMillis").asInt();
            case HIT_LIMIT -> node.path("maxHits").asInt() + ", " + node.path("windowSeconds").asInt();
            default -> node.asText();
        };
    }

    private static JsonNode value(Kind kind, String text) {
        var nodes = JSON.getNodeFactory();
        return switch (kind) {
            case INTEGER -> {
                try {
                    yield nodes.numberNode(Integer.parseInt(text));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("a whole number, please");
                }
            }
            case DECIMAL -> {
                try {
                    yield nodes.numberNode(Double.parseDouble(text));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("a number, please (e.g. 2.5)");
                }
            }
            case BOOLEAN -> nodes.booleanNode(Boolean.parseBoolean(text));
            case TEXT, CHOICE -> text.isEmpty() ? nodes.nullNode() : nodes.textNode(text);
            case HIT_LIMIT -> {
                if (text.isEmpty()) {
                    yield null;
                }
                String[] parts = text.split(",");
                try {
                    if (parts.length != 2) {
                        throw new NumberFormatException();
                    }
                    ObjectNode limit = nodes.objectNode();
                    limit.put("windowSeconds", Integer.parseInt(parts[1].trim()));
                    limit.put("maxHits", Integer.parseInt(parts[0].trim()));
                    yield limit;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("two whole numbers: hits, window in seconds (empty: none)");
                }
            }
            case LIST -> {
                ArrayNode array = nodes.arrayNode();
                for (String item : text.split("[,\\n]")) {
                    if (!item.isBlank()) {
                        array.add(item.trim());
                    }
                }
                yield array;
            }
            case ALLOW -> allow(text);
            case PROGRESSIVE -> {
                if (text.isEmpty()) {
                    yield null;
                }
                String[] parts = text.split(",");
                if (parts.length != 3) {
                    throw new IllegalArgumentException("three whole numbers: soft hits, ms per hit, max ms");
                }
                try {
                    ObjectNode delay = nodes.objectNode();
                    delay.put("softHits", Integer.parseInt(parts[0].trim()));
                    delay.put("delayMillisPerHit", Integer.parseInt(parts[1].trim()));
                    delay.put("maxDelayMillis", Integer.parseInt(parts[2].trim()));
                    yield delay;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("three whole numbers: soft hits, ms per hit, max ms");
                }
            }
        };
    }

    private static ArrayNode allow(String text) {
        ArrayNode entries = JSON.getNodeFactory().arrayNode();
        String[] lines = text.split("\\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty()) {
                continue;
            }
            String note = null;
            int hash = line.indexOf(" # ");
            if (hash >= 0) {
                note = line.substring(hash + 3).trim();
                line = line.substring(0, hash).trim();
            }
            boolean exempt = false;
            int bar = line.indexOf(" | ");
            if (bar >= 0) {
                String flag = line.substring(bar + 3).trim();
                if (!flag.equals("exempt-from-pause")) {
                    throw new IllegalArgumentException("line " + (i + 1) + ": the only flag is exempt-from-pause");
                }
                exempt = true;
                line = line.substring(0, bar).trim();
            }
            int space = line.indexOf(' ');
            String type = space < 0 ? line : line.substring(0, space);
            if (!type.equalsIgnoreCase("ip") && !type.equalsIgnoreCase("agent") || space < 0) {
                throw new IllegalArgumentException("line " + (i + 1) + ": start with ip or agent, then the value");
            }
            ObjectNode entry = entries.addObject();
            entry.put("type", type.toLowerCase(Locale.ROOT));
            entry.put("value", line.substring(space + 1).trim());
            entry.put("exemptFromPause", exempt);
            entry.put("note", note);
        }
        return entries;
    }

    private static List<String> strings(JsonNode array) {
        List<String> list = new ArrayList<>();
        array.forEach(item -> list.add(item.asText()));
        return list;
    }

    private static JsonNode node(JsonNode tree, String path) {
        JsonNode node = tree;
        for (String part : path.split("\\.")) {
            node = node == null ? null : node.get(part);
        }
        return node;
    }

    /** Sets (or, for a null value, removes) the value at {@code path}, creating objects on the way. */
    private static void set(ObjectNode tree, String path, JsonNode value) {
        String[] parts = path.split("\\.");
        ObjectNode parent = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = parent.get(parts[i]);
            parent = child instanceof ObjectNode object ? object : parent.putObject(parts[i]);
        }
        if (value == null) {
            parent.remove(parts[parts.length - 1]);
        } else {
            parent.set(parts[parts.length - 1], value);
        }
    }
}
