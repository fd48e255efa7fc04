package io.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.Role;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /api/v1/domains/{domain}/rate}, {@code /min-delay}, {@code /reset} and {@code /revive}: an
 * operator's action on one domain of the crawl governor, audited with what an operator can change before and
 * after. One instance per action, each mapped to its own path ({@link #routes}).
 */
final class DomainActionResource extends Resource {
    private final CrawlGovernor governor;
    private final AuditLog audit;
    private final InstantSource clock;
    private final String auditAction;
    private final Action action;

    /**
     * What an action does to a domain, read from the call's body before anything changes.
     *
     * @param detail the change in words, for the audit
     * @param apply  the change, given the domain's normal form
     * @param field  the field a change the governor refuses is blamed on (a 400)
     */
    record Change(String detail, Function<String, DomainView> apply, String field) {
    }

    /** Reads a call's body into the {@link Change} it asks of {@code domain} (as the caller wrote it). */
    @FunctionalInterface
    interface Action {
        Change read(Request request, String domain) throws IOException;
    }

    record RateRequest(Double requestsPerSecond) {
    }

    record MinDelayRequest(Long millis) {
    }

    private DomainActionResource(CrawlGovernor governor, AuditLog audit, InstantSource clock, String auditAction,
            Action action) {
        super(Access.of("POST", Role.ADMIN));
        this.governor = governor;
        this.audit = audit;
        this.clock = clock;
        this.auditAction = auditAction;
        this.action = action;
    }

    /** The four actions, each on its path. */
    static List<Route> routes(CrawlGovernor governor, AuditLog audit, InstantSource clock) {
        return List.of(
                Route.api("domains/{domain}/rate", new DomainActionResource(governor, audit, clock, "domain.rate",
                        (request, domain) -> {
                            RateRequest body = ApiMessages.read(request, RateRequest.class);
                            if (body.requestsPerSecond() == null) {
                                throw ApiError.field("requestsPerSecond", "is required");
                            }
                            return new Change("set the rate of " + domain + " to " + body.requestsPerSecond()
                                    + " requests per second", name -> governor.setRate(name, body.requestsPerSecond()),
                                    "requestsPerSecond");
                        })),
                Route.api("domains/{domain}/min-delay", new DomainActionResource(governor, audit, clock,
                        "domain.min-delay", (request, domain) -> {
                            MinDelayRequest body = ApiMessages.read(request, MinDelayRequest.class);
                            if (body.millis() == null) {
                                throw ApiError.field("millis", "is required (0 removes the minimum delay)");
                            }
                            return new Change("set the minimum delay of " + domain + " to " + body.millis() + " ms",
                                    name -> governor.setMinDelay(name, body.millis()), "millis");
                        })),
                Route.api("domains/{domain}/reset", new DomainActionResource(governor, audit, clock, "domain.reset",
                        (request, domain) -> bodiless(request, new Change("reset what the governor learned about "
                                + domain, governor::reset, "domain")))),
                Route.api("domains/{domain}/revive", new DomainActionResource(governor, audit, clock,
                        "domain.revive", (request, domain) -> bodiless(request, new Change("revived " + domain,
                                governor::revive, "domain")))));
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        String domain = pathParameter(request, "domain");
        Change change = action.read(request, domain);
        String name = DomainResource.checked(domain);
        JsonNode before = governor.domain(name).map(DomainActionResource::audited).orElse(null);
        DomainView after;
        try {
            after = change.apply().apply(name);
        } catch (IllegalArgumentException e) {
            throw ApiError.field(change.field(), e.getMessage());
        }
        Caller caller = Caller.of(request);
        audit.append(new AuditEntry(0, clock.instant(), caller.token(), caller.operator(), auditAction,
                change.detail(), before, audited(after)));
        return ApiMessages.json(response, callback, 200, after);
    }

    /** A body is not expected; it is read so that the connection stays usable. */
    private static Change bodiless(Request request, Change change) throws IOException {
        ApiMessages.body(request);
        return change;
    }

    /** What the audit log keeps of a domain: what an operator can change, not the traffic figures. */
    private static JsonNode audited(DomainView view) {
        ObjectNode node = PolicyJson.mapper().createObjectNode();
        node.put("domain", view.domain());
        node.put("rate", view.rate());
        node.put("minDelayMillis", view.minDelayMillis());
        node.put("breaker", view.breaker().name());
        node.put("givenUp", view.givenUp());
        return node;
    }
}
