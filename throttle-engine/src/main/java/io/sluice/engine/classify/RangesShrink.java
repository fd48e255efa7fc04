package io.sluice.engine.classify;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The check a fresh copy of the published ranges passes before it replaces the last good one: no crawler that had
 * blocks may come back with fewer than half of them (or none, or gone from the file). Publishers' files grow and
 * shrink by a few blocks; a file cut short, an error page that happens to parse, or a publisher's mistake shrinks by
 * far more, and would turn the real crawler into a bot. A copy that fails the check is not used: the last good one
 * stays, and the message says which crawlers shrank (docs/manual/classify.md, "Ranges at runtime").
 */
public final class RangesShrink {

    private RangesShrink() {
    }

    /**
     * Why {@code fresh} may not replace {@code previous}, or null when it may.
     *
     * @param previous the last good copy (or, before there is one, what would otherwise be used: the bundled copy)
     */
    public static String problem(CrawlerRanges previous, CrawlerRanges fresh) {
        List<String> shrunk = new ArrayList<>();
        for (String name : new TreeSet<>(previous.names())) {
            int before = previous.of(name).ranges().size();
            CrawlerRanges.Published now = fresh.of(name);
            int after = now == null ? 0 : now.ranges().size();
            if (before > 0 && after * 2 < before) {
                shrunk.add(name + " " + before + " -> " + after);
            }
        }
        if (shrunk.isEmpty()) {
            return null;
        }
        String list = shrunk.size() <= 5 ? String.join(", ", shrunk)
                : String.join(", ", shrunk.subList(0, 5)) + " and " + (shrunk.size() - 5) + " more";
        return "shrunk by more than half (blocks: " + list + ")";
    }
}
