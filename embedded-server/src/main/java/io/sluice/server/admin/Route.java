package io.sluice.server.admin;

import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;

/**
 * One path of the admin API and the resource that serves it (whose {@link Access} says who may call it).
 * Another room mounts its endpoints by handing {@link AdminHandler} its routes.
 */
public record Route(PathSpec path, Resource resource) {
    /** The API's paths' prefix. */
    public static final String PREFIX = "/api/v1/";

    public Route {
        if (path == null || resource == null) {
            throw new IllegalArgumentException("a route needs a path and a resource");
        }
    }

    /** {@code /api/v1/} + {@code template}, a Jetty URI template: {@code bans/{id}}. */
    public static Route api(String template, Resource resource) {
        return new Route(new UriTemplatePathSpec(PREFIX + template), resource);
    }

    /** The path as declared, e.g. {@code /api/v1/bans/{id}}. */
    public String declaration() {
        return path.getDeclaration();
    }
}
