package io.sluice.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.Snapshot;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/stream}: one server-sent event a second, each a snapshot. No thread is held between
 * events: each write's completion schedules the next on Jetty's scheduler, and a failed write (the client
 * went away) ends the stream, as does reaching its lifetime.
 */
final class SnapshotStream {
    private static final long PERIOD_MILLIS = 1_000;
    private final Supplier<Snapshot> snapshots;
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final long endNanos;

    SnapshotStream(Supplier<Snapshot> snapshots, Request request, Response response, Callback callback,
                   java.time.Duration lifetime) {
        this.snapshots = snapshots;
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.endNanos = System.nanoTime() + lifetime.toNanos();
    }

    void start() {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        send();
    }

    private void send() {
        if (System.nanoTime() - endNanos > 0) {
            response.write(true, null, callback);
            return;
        }
        String event;
        try {
            event = "data: " + PolicyJson.mapper().writeValueAsString(snapshots.get()) + "\n\n";
        } catch (JsonProcessingException e) {
            callback.failed(e);
            return;
        }
        response.write(false, ByteBuffer.wrap(event.getBytes(StandardCharsets.UTF_8)), Callback.from(
                () -> request.getComponents().getScheduler().schedule(this::send, PERIOD_MILLIS,
                        TimeUnit.MILLISECONDS),
                callback::failed));
    }
}
