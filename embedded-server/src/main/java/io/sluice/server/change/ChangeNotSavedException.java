package io.sluice.server.change;

/** A valid change that could not be made durable; the live policy is as it was before. */
public final class ChangeNotSavedException extends RuntimeException {
    public ChangeNotSavedException(String message, Throwable cause) {
        super(message, cause);
    }
}
