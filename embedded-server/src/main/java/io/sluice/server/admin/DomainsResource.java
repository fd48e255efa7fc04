package io.sluice.server.admin;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.server.state.Role;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /api/v1/domains}: what the crawl governor knows, domains needing attention first. */
final class DomainsResource extends Resource {
    private final CrawlGovernor governor;

    DomainsResource(CrawlGovernor governor) {
        super(Access.of("GET", Role.READ));
        this.governor = governor;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return ApiMessages.json(response, callback, 200, governor.snapshot());
    }
}
