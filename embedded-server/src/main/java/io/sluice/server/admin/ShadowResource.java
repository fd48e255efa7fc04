package io.sluice.server.admin;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Mounts the shadow policy's calls ({@link ShadowApi}: install, read, remove, promote) in the routes. */
final class ShadowResource extends Resource {
    private final ShadowApi shadow;

    ShadowResource(ShadowApi shadow) {
        super("GET", "PUT", "DELETE", "POST");
        this.shadow = shadow;
    }

    @Override
    boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return shadow.route(request, response, callback, request.getHttpURI().getCanonicalPath(), method);
    }
}
