package io.sluice.server.admin;

import io.sluice.server.state.Role;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /metrics}: Prometheus text format. */
final class MetricsResource extends Resource {
    private final SluiceMetrics metrics;

    MetricsResource(SluiceMetrics metrics) {
        super(Access.of("GET", Role.READ));
        this.metrics = metrics;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return ApiMessages.text(response, callback, "text/plain; version=0.0.4; charset=utf-8", 200, metrics.scrape());
    }
}
