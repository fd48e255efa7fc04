package io.sluice.server.admin;

import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;

/** One resource of the admin API: the methods it allows (405 with {@code Allow} otherwise) and how it serves them. */
abstract class Resource extends Handler.Abstract {
    private final List<String> methods;

    Resource(String... methods) {
        this.methods = List.of(methods);
    }

    @Override
    public final boolean handle(Request request, Response response, Callback callback) throws Exception {
        String method = request.getMethod();
        if (!methods.contains(method)) {
            String allowed = String.join(", ", methods);
            response.getHeaders().put(HttpHeader.ALLOW, allowed);
            return ApiMessages.error(response, callback, 405, method + " is not allowed here; use " + allowed);
        }
        return serve(method, request, response, callback);
    }

    abstract boolean serve(String method, Request request, Response response, Callback callback) throws Exception;

    /** A variable of the {@link UriTemplatePathSpec} this resource is mapped to, e.g. {@code {id}}. */
    static String pathParameter(Request request, String name) {
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
