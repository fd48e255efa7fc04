package io.sluice.console.api;

import java.util.Optional;

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
        /** The server's certificate is not the one pinned for it: refused, nothing was sent. */
        CERTIFICATE_CHANGED,
        /**
         * The server's certificate is neither signed by an authority this machine trusts nor pinned: nothing was
         * sent; {@link #offered()} is what the operator may choose to trust.
         */
        CERTIFICATE_UNKNOWN,
        /** The server's certificate is signed by a trusted authority but for other names: refused, nothing sent. */
        CERTIFICATE_WRONG_HOST
    }

    private final Kind kind;
    private final transient OfferedCertificate offered;

    public AdminException(Kind kind, String message) {
        this(kind, message, null);
    }

    /** A {@link Kind#CERTIFICATE_UNKNOWN} failure with the certificate the server offered. */
    public AdminException(Kind kind, String message, OfferedCertificate offered) {
        super(message);
        this.kind = kind;
        this.offered = offered;
    }

    public Kind kind() {
        return kind;
    }

    /** The certificate a server offered that is not trusted yet ({@link Kind#CERTIFICATE_UNKNOWN} only). */
    public Optional<OfferedCertificate> offered() {
        return Optional.ofNullable(offered);
    }
}
