package io.sluice.server.admin;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Mounts the crawl governor's calls ({@link GovernorApi}: permits, feedback, domains) in the routes. */
final class GovernorResource extends Resource {
    private final GovernorApi governor;

    GovernorResource(GovernorApi governor) {
        super("GET", "POST", "PUT", "DELETE");
        this.governor = governor;
    }

    @Override
    boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return governor.route(request, response, callback, request.getHttpURI().getCanonicalPath(), method)
                || ApiMessages.error(response, callback, 404, "no such path: " + request.getHttpURI().getPath());
    }
}
