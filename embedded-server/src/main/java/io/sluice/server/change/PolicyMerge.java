package io.sluice.server.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A three-way merge of policy documents, field by field: an edit made from version {@code base} is laid
 * over the live policy, keeping every field changed meanwhile that the edit left alone. A field is an
 * object member that is not itself an object (a number, a string, a whole list such as {@code bans} or
 * {@code trustedProxies}); two changes of the same field to different values are a conflict.
 */
final class PolicyMerge {
    /** The merged document, or the fields in conflict. */
    record Result(JsonNode merged, List<String> conflicts) {
    }

    private PolicyMerge() {
    }

    static Result merge(JsonNode base, JsonNode ours, JsonNode theirs) {
        List<String> conflicts = new ArrayList<>();
        JsonNode merged = merge("", base, ours, theirs, conflicts);
        return new Result(merged, conflicts);
    }

    /** The fields that differ between two documents, as dotted paths. */
    static List<String> changedFields(JsonNode before, JsonNode after) {
        List<String> changed = new ArrayList<>();
        diff("", before, after, changed);
        return changed;
    }

    private static JsonNode merge(String path, JsonNode base, JsonNode ours, JsonNode theirs, List<String> conflicts) {
        if (ours.equals(base) || ours.equals(theirs)) {
            return theirs;
        }
        if (theirs.equals(base)) {
            return ours;
        }
        if ("bans".equals(path) && base.isArray() && ours.isArray() && theirs.isArray()) {
            return mergeBans(base, ours, theirs, conflicts);
        }
        if (base.isObject() && ours.isObject() && theirs.isObject()) {
            ObjectNode merged = JsonNodeFactory.instance.objectNode();
            for (String name : names(base, ours, theirs)) {
                JsonNode value = merge(child(path, name), base.path(name), ours.path(name), theirs.path(name),
                        conflicts);
                if (!value.isMissingNode()) {
                    merged.set(name, value);
                }
            }
            return merged;
        }
        conflicts.add(path.isEmpty() ? "policy" : path);
        return theirs;
    }

    /**
     * Bans merge as a set keyed by id, not as one field: escalation adds and expires bans all the time, and an edit
     * made meanwhile (a limits form, or an operator's ban) must neither conflict with that nor undo it. What the edit
     * added or removed since {@code base} is applied to {@code theirs}; a ban both changed differently is a conflict.
     */
    private static JsonNode mergeBans(JsonNode base, JsonNode ours, JsonNode theirs, List<String> conflicts) {
        Map<String, JsonNode> before = byId(base);
        Map<String, JsonNode> mine = byId(ours);
        Map<String, JsonNode> live = byId(theirs);
        ArrayNode merged = JsonNodeFactory.instance.arrayNode();
        for (Map.Entry<String, JsonNode> ban : live.entrySet()) {
            JsonNode was = before.get(ban.getKey());
            JsonNode edited = mine.get(ban.getKey());
            if (was != null && edited == null) {
                continue; // the edit removed it
            }
            if (was != null && !edited.equals(was) && !ban.getValue().equals(was) && !edited.equals(ban.getValue())) {
                conflicts.add("bans[" + ban.getKey() + "]");
            }
            merged.add(was != null && ban.getValue().equals(was) ? edited : ban.getValue());
        }
        for (Map.Entry<String, JsonNode> ban : mine.entrySet()) {
            if (!before.containsKey(ban.getKey()) && !live.containsKey(ban.getKey())) {
                merged.add(ban.getValue()); // the edit added it
            }
        }
        return merged;
    }

    private static Map<String, JsonNode> byId(JsonNode bans) {
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        for (JsonNode ban : bans) {
            byId.put(ban.path("id").asText(), ban);
        }
        return byId;
    }

    private static void diff(String path, JsonNode before, JsonNode after, List<String> changed) {
        if (before.equals(after)) {
            return;
        }
        if (before.isObject() && after.isObject()) {
            for (String name : names(before, after, MissingNode.getInstance())) {
                diff(child(path, name), before.path(name), after.path(name), changed);
            }
            return;
        }
        changed.add(path.isEmpty() ? "policy" : path);
    }

    private static Set<String> names(JsonNode... nodes) {
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode node : nodes) {
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                names.add(it.next());
            }
        }
        return names;
    }

    private static String child(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }
}
