package io.sluice.server.change;

import java.io.IOException;

/**
 * The store's policy moved on (a change made elsewhere) since the one a change was computed from; nothing was
 * recorded. {@link PolicyChanges} computes the change again from the newer policy.
 */
public final class StaleVersionException extends IOException {
    private final long currentVersion;

    /** @param currentVersion the store's version now */
    public StaleVersionException(String message, long currentVersion) {
        super(message);
        this.currentVersion = currentVersion;
    }

    public long currentVersion() {
        return currentVersion;
    }
}
