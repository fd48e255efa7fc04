package io.sluice.console.api;

/** A failed admin call, with what kind of failure it was so the console can say the right thing. */
public final class AdminException extends Exception {
    /** Why a call failed. */
    public enum Kind {
        /** The server could not be reached. */
        UNREACHABLE,
        /** The server refused the token. */
        UNAUTHORISED,
        /** The server refused the request (field errors). */
        REJECTED,
        /** The server answered something unexpected. */
        PROTOCOL,
        /** The server's self-signed certificate is not the one pinned for it: refused. */
        CERTIFICATE_CHANGED
    }

    private final Kind kind;

    public AdminException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
