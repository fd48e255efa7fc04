package io.sluice.server.change;

/** The store's policy moved on (a change made elsewhere) since the one a change was computed from. */
public final class StaleVersionException extends java.io.IOException {
    public StaleVersionException(String message) {
        super(message);
    }
}
