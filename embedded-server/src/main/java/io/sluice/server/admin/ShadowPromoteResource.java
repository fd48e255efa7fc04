package io.sluice.server.admin;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /api/v1/policy/shadow/promote}: the shadow policy becomes the live one through the same path as
 * {@code PUT /api/v1/policy} (If-Match, validation, {@code policy.json}, audit), and is then removed.
 */
final class ShadowPromoteResource extends Resource {
    private final LiveShadow shadow;
    private final PolicyChanges changes;

    ShadowPromoteResource(LiveShadow shadow, PolicyChanges changes) {
        super(Access.of("POST", Role.ADMIN));
        this.shadow = shadow;
        this.changes = changes;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        ApiMessages.body(request); // a body is not expected; read it so the connection stays usable
        LiveShadow.Candidate candidate = shadow.candidate();
        if (candidate == null) {
            return ShadowResource.none(response, callback);
        }
        Long basedOn = ApiMessages.ifMatchVersion(request, response, callback);
        if (basedOn == null) {
            return true;
        }
        // the one change path (validate, persist with its audit entry, swap), like PUT /api/v1/policy
        Policy installed = changes.replace(Caller.of(request).author(), basedOn, candidate.policy(), "policy.promote",
                "promoted from shadow: ");
        shadow.remove();
        response.getHeaders().put(HttpHeader.ETAG, ApiMessages.etag(installed.version()));
        return ApiMessages.json(response, callback, 200, installed);
    }
}
