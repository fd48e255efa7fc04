package io.sluice.console.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.policy.PolicyJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** An audit entry in words: one line for the list, and what changed for the details. */
final class AuditText {
    private AuditText() {
    }

    static String line(JsonNode entry) {
        return entry.path("at").asText() + "  " + entry.path("who").asText() + "  " + entry.path("action").asText()
                + "  " + entry.path("detail").asText();
    }

    /**
     * The fields that differ between before and after, one per line ({@code path: old -> new}),
     * then both in full; "nothing recorded" when the entry has neither.
     */
    static String beforeAfter(JsonNode entry) {
        JsonNode before = entry.path("before");
        JsonNode after = entry.path("after");
        if (before.isMissingNode() && after.isMissingNode() || before.isNull() && after.isNull()) {
            return line(entry) + "\n\nnothing recorded before/after";
        }
        List<String> changes = new ArrayList<>();
        diff("", before, after, changes);
        StringBuilder text = new StringBuilder(line(entry)).append("\n\nChanged:\n");
        changes.forEach(change -> text.append("  ").append(change).append('\n'));
        text.append("\nBefore:\n").append(pretty(before)).append("\n\nAfter:\n").append(pretty(after));
        return text.toString();
    }

    private static void diff(String path, JsonNode before, JsonNode after, List<String> changes) {
        if (before.isObject() && after.isObject()) {
            Set<String> names = new TreeSet<>();
            before.fieldNames().forEachRemaining(names::add);
            after.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                diff(path.isEmpty() ? name : path + "." + name, before.path(name), after.path(name), changes);
            }
        } else if (!before.equals(after)) {
            changes.add((path.isEmpty() ? "(whole)" : path) + ": " + compact(before) + " -> " + compact(after));
        }
    }

    private static String compact(JsonNode node) {
        return node.isMissingNode() ? "(none)" : node.toString();
    }

    private static String pretty(JsonNode node) {
        try {
            return node.isMissingNode() ? "(none)" : PolicyJson.mapper().writerWithDefaultPrettyPrinter()
                    .writeValueAsString(node);
        } catch (JsonProcessingException e) {
            return node.toString();
        }
    }
}
