package io.sluice.server.admin;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.StateDirectory;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.http.pathmap.UriTemplatePathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;

/**
 * The admin API (JSON under {@code /api/v1}, and {@code /metrics}), assembled from rooms that each do one
 * thing, in the order a call meets them:
 * <ol>
 *   <li>{@link HostCheck}: the {@code Host} must be a name the listener is known by (DNS rebinding);</li>
 *   <li>Jetty's {@link SizeLimitHandler}: no request body past {@value ApiMessages#MAX_BODY_BYTES} bytes is
 *       read, announced or chunked;</li>
 *   <li>{@link TokenAuthentication}: a live token, or 401;</li>
 *   <li>{@link ApiErrorHandler}: what a resource refuses becomes a JSON error, a path no route maps a 404;</li>
 *   <li>the routes, Jetty's {@link PathMappingsHandler}: every path a {@link Route} to a small {@link Resource}
 *       that declares who may call each of its methods ({@link Access}: 405 for a method it lacks, 403 for a
 *       role that lacks the method, decided by {@link Permissions}); every policy change goes through
 *       {@link PolicyChanges} (validate, persist, swap, in that order).</li>
 * </ol>
 * The design is in {@code docs/architecture.md} ("Admin API").
 */
public final class AdminHandler extends Handler.Wrapper {
    static final int MAX_BODY_BYTES = ApiMessages.MAX_BODY_BYTES;

    private final List<Route> routes;

    /**
     * @param extraRoutes another room's endpoints (the cluster's), served behind the same checks as the API's own
     * @param hostNames   the host names the admin listener answers to besides addresses and localhost
     */
    public AdminHandler(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, StateDirectory state,
                        PolicyChanges changes, InstantSource clock, List<Route> extraRoutes, Set<String> hostNames) {
        this(engine, governor, shadow, state, changes, clock, extraRoutes, hostNames, ServerCounters.NONE);
    }

    /** @param counters what {@code /metrics} shows besides the engine's and the governor's numbers */
    public AdminHandler(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, StateDirectory state,
                        PolicyChanges changes, InstantSource clock, List<Route> extraRoutes, Set<String> hostNames,
                        ServerCounters counters) {
        TokenAuthentication authentication = new TokenAuthentication(state.tokens());
        List<Route> all = new ArrayList<>(List.of(
                new Route(new UriTemplatePathSpec("/metrics"), new MetricsResource(
                        new SluiceMetrics(engine, governor::snapshot, counters))),
                Route.api("snapshot", new SnapshotResource(engine::snapshot)),
                Route.api("stream", new StreamResource(engine::snapshot, StreamResource.DEFAULT_MAX_STREAMS,
                        StreamResource.DEFAULT_MAX_LIFETIME, authentication::stillValid)),
                Route.api("policy", new PolicyResource(changes)),
                Route.api("policy/shadow", new ShadowResource(shadow, engine, state.audit(), clock)),
                Route.api("policy/shadow/promote", new ShadowPromoteResource(shadow, changes)),
                Route.api("bans", new BansResource(changes, clock)),
                Route.api("bans/{id}", new BanResource(changes)),
                Route.api("pause", new PauseResource(changes, true)),
                Route.api("resume", new PauseResource(changes, false)),
                Route.api("browser-check", new BrowserCheckResource(changes)),
                Route.api("audit", new AuditResource(state.audit())),
                Route.api("tokens", new TokensResource(state.tokens(), state.audit(), clock, false)),
                Route.api("tokens/{name}", new TokensResource(state.tokens(), state.audit(), clock, true)),
                Route.api("permits", new PermitResource(governor, () -> engine.policy().governor())),
                Route.api("feedback", new FeedbackResource(governor)),
                Route.api("domains", new DomainsResource(governor)),
                Route.api("domains/{domain}", new DomainResource(governor))));
        all.addAll(DomainActionResource.routes(governor, state.audit(), clock));
        all.addAll(extraRoutes);
        this.routes = List.copyOf(all);
        PathMappingsHandler mappings = new PathMappingsHandler();
        routes.forEach(route -> mappings.addMapping(route.path(), route.resource()));

        SizeLimitHandler sizeLimit = new SizeLimitHandler(MAX_BODY_BYTES, -1);
        authentication.setHandler(new ApiErrorHandler(mappings));
        sizeLimit.setHandler(authentication);
        setHandler(new HostCheck(hostNames, sizeLimit));
    }

    /** Every path the API serves, in the order they were declared. */
    List<Route> routes() {
        return routes;
    }
}
