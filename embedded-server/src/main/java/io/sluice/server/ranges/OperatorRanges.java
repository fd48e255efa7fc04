package io.sluice.server.ranges;

import io.sluice.engine.classify.CrawlerRanges;
import io.sluice.engine.classify.RangesShrink;
import io.sluice.server.state.AtomicFiles;
import io.sluice.server.state.StateOwner;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The operator's copy of the crawlers' published ranges, kept in the state directory as {@value #FILE}: the last
 * copy that passed the checks, used over the bundled one entry by entry ({@link CrawlerRanges#overlay}). A fresh copy
 * replaces it only when it parses whole (so no block is wider than /8 or /16, {@link CrawlerRanges}) and does not
 * shrink any crawler's blocks by more than half ({@link RangesShrink}); otherwise the last good copy stays and the
 * outcome says why. Both {@code sluice-server crawler-ranges update} and the running server's timer
 * ({@link CrawlerRangesFollower}) update it here.
 */
public final class OperatorRanges {

    /** The last good copy's name in the state directory. */
    public static final String FILE = "crawler-ranges.json";

    /**
     * What an update did.
     *
     * @param used    true when the fresh copy is now the last good one
     * @param copy    the fresh copy when it parsed (used or refused for shrinking), else null
     * @param message what happened, for the operator: the copy's size, or why it was not used
     */
    public record Outcome(boolean used, CrawlerRanges copy, String message) {
    }

    private OperatorRanges() {
    }

    /**
     * The last good copy in {@code stateDir}, or null when there is none.
     *
     * @throws IOException              it cannot be read
     * @throws IllegalArgumentException it is not a valid copy (edited by hand, or from an older version's limits)
     */
    public static CrawlerRanges lastGood(Path stateDir) throws IOException {
        Path file = stateDir.resolve(FILE);
        if (!Files.exists(file)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(file)) {
            return CrawlerRanges.parse(in, file.toString());
        }
    }

    /**
     * Reads {@code location}, checks the copy and, when it passes, writes it to {@code stateDir}. A source that fails
     * or a copy that is refused changes nothing.
     *
     * @param acceptShrink use a copy that shrank by more than half all the same (the operator knows why)
     * @param owner        whose the written file is (the service's user, when a command runs as root); null: the
     *                     process's
     */
    public static Outcome update(Path stateDir, RangesLocation location, boolean acceptShrink, StateOwner owner) {
        byte[] bytes;
        try {
            bytes = location.read();
        } catch (IOException | RuntimeException e) {
            return new Outcome(false, null, "could not be read: " + e.getMessage()
                    + "; the last good copy is kept");
        }
        CrawlerRanges fresh;
        try {
            fresh = CrawlerRanges.parse(new ByteArrayInputStream(bytes), location.text());
        } catch (IOException | IllegalArgumentException e) {
            return new Outcome(false, null, "refused: " + e.getMessage() + "; the last good copy is kept");
        }
        CrawlerRanges previous;
        try {
            previous = lastGood(stateDir);
        } catch (IOException | IllegalArgumentException e) {
            previous = null; // an unreadable last copy is no copy: the bundled one is the measure
        }
        CrawlerRanges bundled = CrawlerRanges.bundled();
        String shrunk = RangesShrink.problem(previous == null ? bundled : bundled.overlay(previous),
                bundled.overlay(fresh));
        if (shrunk != null && !acceptShrink) {
            return new Outcome(false, fresh, "refused: " + shrunk + "; the last good copy is kept");
        }
        Path file = stateDir.resolve(FILE);
        try {
            AtomicFiles.write(file, bytes);
            if (owner != null) {
                owner.adopt(file);
            }
        } catch (IOException e) {
            return new Outcome(false, fresh, "could not be saved to " + file + ": " + e.getMessage()
                    + "; the last good copy is kept");
        }
        return new Outcome(true, fresh, fresh.prefixCount() + " blocks for " + fresh.names().size()
                + " crawler names" + (fresh.asOf() == null ? "" : ", as of " + fresh.asOf())
                + (shrunk == null ? "" : " (" + shrunk + ": accepted as asked)"));
    }
}
