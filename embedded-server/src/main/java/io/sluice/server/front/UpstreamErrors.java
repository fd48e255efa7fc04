package io.sluice.server.front;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The front end's own 502s and 504s: answers a client got because the upstream failed, not because it said so (an
 * upstream's own 502 is passed on and not counted here). For {@code sluice_upstream_errors_total{reason}}
 * (docs/manual/monitoring.md). One instance serves both forwarding paths.
 */
public final class UpstreamErrors {
    private final LongAdder connect = new LongAdder();
    private final LongAdder timeout = new LongAdder();
    private final LongAdder broken = new LongAdder();

    /** Counts since start, by why. */
    public record Counts(long connect, long timeout, long broken) {
    }

    /** Why the upstream failed a request, as the metric's {@code reason} label says it. */
    public enum Reason {
        /** No connection: refused, unreachable, its name not found (502). */
        CONNECT,
        /** It did not answer within {@code --upstream-timeout} (504). */
        TIMEOUT,
        /** The connection failed after the request went out, before a response began (502). */
        BROKEN
    }

    /** A 502 or 504 sent for {@code reason}. */
    public void count(Reason reason) {
        switch (reason) {
            case CONNECT -> connect.increment();
            case TIMEOUT -> timeout.increment();
            case BROKEN -> broken.increment();
            default -> throw new IllegalArgumentException(reason.name());
        }
    }

    /** The reason behind a failure an HTTP client reported (the proxy path's). */
    static Reason reasonOf(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException) {
                return Reason.TIMEOUT;
            }
            if (cause instanceof ConnectException || cause instanceof UnknownHostException
                    || cause instanceof UnresolvedAddressException) {
                return Reason.CONNECT;
            }
        }
        return Reason.BROKEN;
    }

    public Counts counts() {
        return new Counts(connect.sum(), timeout.sum(), broken.sum());
    }
}
