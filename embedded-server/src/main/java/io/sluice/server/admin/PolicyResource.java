package io.sluice.server.admin;

import io.sluice.engine.policy.Policy;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/policy} with its version as ETag; {@code PUT} replaces it with an edit made from the
 * version in {@code If-Match}, merged field by field with whatever changed since (see {@link PolicyChanges}).
 */
final class PolicyResource extends Resource {
    private final PolicyChanges changes;

    PolicyResource(PolicyChanges changes) {
        super(Access.of("GET", Role.READ).and("PUT", Role.ADMIN));
        this.changes = changes;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        if ("GET".equals(method)) {
            Policy policy = changes.live();
            response.getHeaders().put(HttpHeader.ETAG, ApiMessages.etag(policy.version()));
            return ApiMessages.json(response, callback, 200, policy);
        }
        // Read the body even when the answer is an error: an unread body makes Jetty close the connection,
        // and a client reusing it for its next call would see it die under it.
        String body = ApiMessages.body(request);
        Long basedOn = ApiMessages.ifMatchVersion(request, response, callback);
        if (basedOn == null) {
            return true;
        }
        Policy proposed = ApiMessages.parseRequired(body, Policy.class);
        Policy installed = changes.replace(Caller.of(request).author(), basedOn, proposed);
        response.getHeaders().put(HttpHeader.ETAG, ApiMessages.etag(installed.version()));
        return ApiMessages.json(response, callback, 200, installed);
    }
}
