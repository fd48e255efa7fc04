package io.sluice.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.pathmap.ServletPathSpec;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The admin API (JSON under {@code /api/v1}, and {@code /metrics}), assembled from rooms that each do one
 * thing, in the order a call meets them:
 * <ol>
 *   <li>{@link HostCheck}: the {@code Host} must be a name the listener is known by (DNS rebinding);</li>
 *   <li>Jetty's {@link SizeLimitHandler}: no request body past {@value ApiMessages#MAX_BODY_BYTES} bytes is
 *       read, announced or chunked;</li>
 *   <li>{@link TokenAuthentication}: a live token whose role opens the call ({@link Permissions});</li>
 *   <li>{@link ApiErrorHandler}: what a resource refuses becomes a JSON error;</li>
 *   <li>the routes, Jetty's {@link PathMappingsHandler}: one small handler per resource; every policy change
 *       goes through {@link PolicyChanges} (validate, persist, swap, in that order).</li>
 * </ol>
 * The design is in {@code docs/architecture.md} ("Admin API").
 */
public final class AdminHandler extends Handler.Wrapper {
    static final String PREFIX = "/api/v1/";
    static final int MAX_BODY_BYTES = ApiMessages.MAX_BODY_BYTES;

    /**
     * @param extraRoutes handlers for paths the API does not serve itself (another room's endpoints); they
     *                    answer their own paths and return false for the rest
     * @param hostNames   the host names the admin listener answers to besides addresses and localhost
     */
    public AdminHandler(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, StateDirectory state,
                        PolicyChanges changes, InstantSource clock, List<Handler> extraRoutes, Set<String> hostNames) {
        this(engine, governor, shadow, state, changes, clock, extraRoutes, hostNames, ServerCounters.NONE);
    }

    /** @param counters what {@code /metrics} shows besides the engine's and the governor's numbers */
    public AdminHandler(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, StateDirectory state,
                        PolicyChanges changes, InstantSource clock, List<Handler> extraRoutes, Set<String> hostNames,
                        ServerCounters counters) {
        PathMappingsHandler routes = new PathMappingsHandler();
        TokenAuthentication authentication = new TokenAuthentication(state.tokens());
        routes.addMapping(new ServletPathSpec("/metrics"), new MetricsResource(
                new SluiceMetrics(engine, governor::snapshot, counters)));
        routes.addMapping(api("snapshot"), new SnapshotResource(engine::snapshot));
        routes.addMapping(api("stream"), new StreamResource(engine::snapshot, StreamResource.DEFAULT_MAX_STREAMS,
                StreamResource.DEFAULT_MAX_LIFETIME, authentication::stillValid));
        routes.addMapping(api("policy"), new PolicyResource(changes));
        routes.addMapping(api("bans"), new BansResource(changes, clock));
        routes.addMapping(api("bans/{id}"), new BanResource(changes));
        routes.addMapping(api("pause"), new PauseResource(changes, true));
        routes.addMapping(api("resume"), new PauseResource(changes, false));
        ShadowResource shadowRoutes = new ShadowResource(new ShadowApi(shadow, engine, state, clock, changes));
        routes.addMapping(api("policy/shadow"), shadowRoutes);
        routes.addMapping(api("policy/shadow/promote"), shadowRoutes);
        routes.addMapping(api("audit"), new AuditResource(state.audit()));
        routes.addMapping(api("tokens"), new TokensResource(state.tokens(), state.audit(), clock, false));
        routes.addMapping(api("tokens/{name}"), new TokensResource(state.tokens(), state.audit(), clock, true));
        GovernorResource governorRoutes = new GovernorResource(
                new GovernorApi(governor, () -> engine.policy().governor(), state, clock));
        routes.addMapping(new ServletPathSpec(GovernorApi.PERMITS), governorRoutes);
        routes.addMapping(new ServletPathSpec(GovernorApi.FEEDBACK), governorRoutes);
        routes.addMapping(new ServletPathSpec(GovernorApi.DOMAINS), governorRoutes);
        routes.addMapping(new ServletPathSpec(GovernorApi.DOMAINS + "/*"), governorRoutes);
        routes.addMapping(new ServletPathSpec("/"), new OtherRoutes(extraRoutes));

        SizeLimitHandler sizeLimit = new SizeLimitHandler(MAX_BODY_BYTES, -1);
        authentication.setHandler(new ApiErrorHandler(routes));
        sizeLimit.setHandler(authentication);
        setHandler(new HostCheck(hostNames, sizeLimit));
    }

    private static UriTemplatePathSpec api(String path) {
        return new UriTemplatePathSpec(PREFIX + path);
    }

    // The vocabulary GovernorApi was written against; the resources use ApiMessages and ApiError directly.

    static String operator(Request request) {
        return Caller.of(request).token();
    }

    static String body(Request request) throws IOException {
        return ApiMessages.body(request);
    }

    static <T> T read(Request request, Class<T> type) throws IOException {
        return ApiMessages.read(request, type);
    }

    /** Answers 405 and returns true unless {@code method} is one of {@code allowed}. */
    static boolean only(String method, String allowed, Response response, Callback callback)
            throws JsonProcessingException {
        if (List.of(allowed.split(", ")).contains(method)) {
            return false;
        }
        response.getHeaders().put(HttpHeader.ALLOW, allowed);
        return error(response, callback, 405, method + " is not allowed here; use " + allowed);
    }

    static boolean error(Response response, Callback callback, int status, String message)
            throws JsonProcessingException {
        return ApiMessages.error(response, callback, status, message);
    }

    static boolean json(Response response, Callback callback, int status, Object body)
            throws JsonProcessingException {
        return ApiMessages.json(response, callback, status, body);
    }

    /** A request the API refuses with field errors; nothing was changed. */
    static final class BadRequest extends ApiError {
        BadRequest(int status, List<FieldError> errors) {
            super(status, errors);
        }
    }
}
