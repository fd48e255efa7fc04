package io.sluice.server.change;

import java.util.List;

/**
 * An edit based on an older version changed fields that were changed meanwhile, or was based on a version
 * no longer known; nothing was applied.
 *
 * @param currentVersion the live version
 * @param fields         the fields both changes touched (empty when the base version was unknown)
 */
public final class PolicyConflict extends RuntimeException {
    private final long currentVersion;
    private final List<String> fields;

    PolicyConflict(String message, long currentVersion, List<String> fields) {
        super(message, null, false, false);
        this.currentVersion = currentVersion;
        this.fields = List.copyOf(fields);
    }

    public long currentVersion() {
        return currentVersion;
    }

    public List<String> fields() {
        return fields;
    }
}
