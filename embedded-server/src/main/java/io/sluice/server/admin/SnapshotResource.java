package io.sluice.server.admin;

import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.state.Role;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /api/v1/snapshot}: the live telemetry. */
final class SnapshotResource extends Resource {
    private final Supplier<Snapshot> snapshots;

    SnapshotResource(Supplier<Snapshot> snapshots) {
        super(Access.of("GET", Role.READ));
        this.snapshots = snapshots;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return ApiMessages.json(response, callback, 200, snapshots.get());
    }
}
