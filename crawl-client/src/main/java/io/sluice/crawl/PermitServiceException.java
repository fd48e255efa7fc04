package io.sluice.crawl;

/** The permit service refused a call or answered something this client does not understand. */
public class PermitServiceException extends RuntimeException {
    private final int status;

    public PermitServiceException(int status, String message) {
        super(message);
        this.status = status;
    }

    public PermitServiceException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
    }

    /** The HTTP status, or 0 when there was no usable answer. */
    public int status() {
        return status;
    }
}
