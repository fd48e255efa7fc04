package io.sluice.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.Snapshot;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/stream}: one server-sent event a second, each a snapshot. No thread is held between
 * events: each write's completion schedules the next on Jetty's scheduler, and a failed write (the client
 * went away) ends the stream, as does reaching its lifetime.
 *
 * <p>The caller's token is checked again before every event, so a token revoked while its stream is open (through
 * the API or the CLI, which only changes the token file) ends the stream within a period: one last event named
 * {@code revoked} says why, then the response ends. Checking per event costs one hash a second per stream and
 * needs no notice from the token store to reach every open stream.
 */
final class SnapshotStream {
    private static final long PERIOD_MILLIS = 1_000;
    private static final byte[] REVOKED = ("event: revoked\ndata: {\"error\":\"the token was revoked\"}\n\n")
            .getBytes(StandardCharsets.UTF_8);
    private final Supplier<Snapshot> snapshots;
    private final Request request;
    private final Response response;
    private final Callback callback;
    private final long endNanos;
    private final BooleanSupplier authorized;

    /** @param authorized whether the caller's token still opens the stream, asked before every event */
    SnapshotStream(Supplier<Snapshot> snapshots, Request request, Response response, Callback callback,
                   Duration lifetime, BooleanSupplier authorized) {
        this.snapshots = snapshots;
        this.authorized = authorized;
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
        if (!authorized.getAsBoolean()) {
            response.write(true, ByteBuffer.wrap(REVOKED), callback);
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
