package io.sluice.server.state;

/** The state directory cannot be used as it is; the message names the file and what is wrong. */
public final class StateException extends RuntimeException {
    public StateException(String message) {
        super(message);
    }

    public StateException(String message, Throwable cause) {
        super(message, cause);
    }
}
