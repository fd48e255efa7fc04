package io.sluice.server.admin;

import io.sluice.server.state.Role;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;

/**
 * One resource of the admin API: the methods it allows and the role each needs ({@link Access}), and how it
 * serves them. A call it does not allow is a 405 with {@code Allow}, whoever makes it (the method does not exist
 * here for anyone); an allowed call whose role the caller lacks is a 403 ({@link Permissions}).
 */
public abstract class Resource extends Handler.Abstract {
    private final Access access;

    protected Resource(Access access) {
        this.access = access;
    }

    /** Who may call what here. */
    public final Access access() {
        return access;
    }

    @Override
    public final boolean handle(Request request, Response response, Callback callback) throws Exception {
        String method = request.getMethod();
        Role declared = access.role(method);
        if (declared == null) {
            String allowed = String.join(", ", access.methods());
            response.getHeaders().put(HttpHeader.ALLOW, allowed);
            return ApiMessages.error(response, callback, 405, method + " is not allowed here; use " + allowed);
        }
        Caller caller = Caller.of(request);
        if (!Permissions.allows(caller.role(), declared)) {
            TokenAuthentication.closeIfBodyUnread(request, response);
            return ApiMessages.error(response, callback, 403, "the token '" + caller.token() + "' ("
                    + caller.role().wireName() + ") may not " + method + " " + request.getHttpURI().getCanonicalPath());
        }
        return serve(method, request, response, callback);
    }

    /** Serves an allowed {@code method} to a caller whose role opens it. */
    protected abstract boolean serve(String method, Request request, Response response, Callback callback)
            throws Exception;

    /** A variable of the {@link UriTemplatePathSpec} this resource is mapped to, e.g. {@code {id}}. */
    protected static String pathParameter(Request request, String name) {
        PathSpec spec = (PathSpec) request.getAttribute(PathMappingsHandler.PATHSPEC_ATTR);
        Map<String, String> parameters = spec instanceof UriTemplatePathSpec template
                ? template.getPathParams(request.getHttpURI().getCanonicalPath()) : Map.of();
        String value = parameters == null ? null : parameters.get(name);
        if (value == null) {
            throw new IllegalStateException("resource mapped without a {" + name + "} variable");
        }
        return value;
    }
}
