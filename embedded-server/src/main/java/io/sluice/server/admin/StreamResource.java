package io.sluice.server.admin;

import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.state.Role;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/stream}: the snapshot as server-sent events. At most {@code maxStreams} are open at
 * once (each costs a snapshot a second), and each ends after {@code maxLifetime}; an event-stream client
 * reconnects by itself, and a stream a vanished client left behind does not live for ever. A stream whose token is
 * revoked ends within a second ({@link SnapshotStream}).
 */
final class StreamResource extends Resource {
    static final int DEFAULT_MAX_STREAMS = 16;
    static final Duration DEFAULT_MAX_LIFETIME = Duration.ofHours(1);
    private final Supplier<Snapshot> snapshots;
    private final int maxStreams;
    private final Duration maxLifetime;
    private final AtomicInteger open = new AtomicInteger();
    private final Predicate<Request> authorized;

    /** @param authorized whether a stream's request still carries a live token (asked before every event) */
    StreamResource(Supplier<Snapshot> snapshots, int maxStreams, Duration maxLifetime,
                   Predicate<Request> authorized) {
        super(Access.of("GET", Role.READ));
        this.authorized = authorized;
        this.snapshots = snapshots;
        this.maxStreams = maxStreams;
        this.maxLifetime = maxLifetime;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            response.getHeaders().put("Retry-After", "10");
            return ApiMessages.error(response, callback, 503, maxStreams + " snapshot streams are open already; "
                    + "poll GET /api/v1/snapshot or try again later");
        }
        Callback closing = new Callback() {
            @Override
            public void succeeded() {
                open.decrementAndGet();
                callback.succeeded();
            }

            @Override
            public void failed(Throwable failure) {
                open.decrementAndGet();
                callback.failed(failure);
            }
        };
        new SnapshotStream(snapshots, request, response, closing, maxLifetime, () -> authorized.test(request)).start();
        return true;
    }

    /** Streams open now (for tests and metrics). */
    int open() {
        return open.get();
    }
}
