package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.engine.RequestClass;
import java.util.List;

/**
 * What a request weighs, and optionally a stricter limit of its own, by route. The first route that matches a
 * request decides; a request no route matches weighs 1.
 *
 * <p>A route matches when its {@code path} matches the request's path (the query is not part of it), the
 * query carries its {@code query} parameter when it names one, its method is one of {@code methods} (any
 * when empty), its class is one of {@code classes} (any when empty) and, when {@code secFetchDest} is not
 * empty, the browser's {@code Sec-Fetch-Dest} header is one of them. {@code Sec-Fetch-Dest} only ever
 * narrows a route: a client can send any value, so it never makes a request match on its own.
 *
 * @param match        how {@code path} is matched
 * @param path         a path prefix ({@code /static/}), a glob ({@code **}{@code /*.css},
 *                     {@code /img/*.{png,jpg}}) or a regular expression (RE2 syntax, linear time), matched
 *                     against the whole path
 * @param query        a query parameter the request must carry, {@code name=value} or {@code name} (e.g.
 *                     {@code action=history}), or null for no condition
 * @param methods      HTTP methods, upper case; empty for any
 * @param classes      request classes; empty for any
 * @param secFetchDest values of {@code Sec-Fetch-Dest} ({@code image}, {@code style}, ...); empty for no condition
 * @param weight       hits a matching request pushes on the hit stacks (0: it costs nothing)
 * @param limits       a stricter hit stack of the route's own, per client, or null for none
 * @param note         why the route exists
 * @param challenge    browser claims without a pass are asked to prove themselves on this route whenever the
 *                     browser check is not {@code off} (a search page, a history page, an archive download); left
 *                     out of the JSON when false
 */
public record Route(
        Match match,
        String path,
        String query,
        List<String> methods,
        List<RequestClass> classes,
        List<String> secFetchDest,
        int weight,
        Policy.HitStack limits,
        String note,
        @JsonInclude(JsonInclude.Include.NON_NULL) Boolean challenge) {

    /** How a route's {@code path} is matched. */
    public enum Match {
        @JsonProperty("prefix") PREFIX,
        @JsonProperty("glob") GLOB,
        @JsonProperty("regex") REGEX
    }

    /**
     * File name extensions of static assets: stylesheets, scripts, source maps, images, icons, fonts and media.
     * The default route gives them weight 0.
     */
    public static final String STATIC_ASSETS = "**.{css,js,mjs,map,png,jpg,jpeg,gif,webp,avif,svg,ico,bmp,"
            + "woff,woff2,ttf,otf,eot,mp4,webm,ogg,mp3,wav,m4a,m4v}";

    /** The default: static assets weigh nothing in the hit stacks, everything else 1. */
    public static final List<Route> DEFAULTS = List.of(new Route(Match.GLOB, STATIC_ASSETS, null, List.of(),
            List.of(), List.of(), 0, null, "static assets cost nothing; pages count"));

    public Route {
        methods = Policy.immutable(methods);
        classes = Policy.immutable(classes);
        secFetchDest = Policy.immutable(secFetchDest);
        // absent in a policy written before the browser check: no challenge, and left out of the JSON again
        challenge = Boolean.TRUE.equals(challenge) ? Boolean.TRUE : null;
    }

    /** Whether browser claims without a pass are asked to prove themselves on this route. */
    public boolean challenges() {
        return Boolean.TRUE.equals(challenge);
    }

    /** A route that does not ask for the browser check. */
    public Route(Match match, String path, String query, List<String> methods, List<RequestClass> classes,
                 List<String> secFetchDest, int weight, Policy.HitStack limits, String note) {
        this(match, path, query, methods, classes, secFetchDest, weight, limits, note, null);
    }
}
