package io.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainNames;
import io.sluice.engine.governor.DomainView;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.governor.Permit;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The crawl governor's side of the admin API: permits and feedback for workers, the domain list and
 * the operator's actions on a domain for the console. A held permit call waits on Jetty's scheduler,
 * never on a parked thread.
 */
final class GovernorApi {
    static final String PERMITS = AdminHandler.PREFIX + "permits";
    static final String FEEDBACK = AdminHandler.PREFIX + "feedback";
    static final String DOMAINS = AdminHandler.PREFIX + "domains";
    /**
     * In cluster mode, on a feedback answer: {@code CLUSTER} when the cluster took the report, {@code DEGRADED}
     * when only this node did (Redis unreachable): a worker may send it again once the cluster is back.
     */
    static final String PACING_HEADER = "Sluice-Pacing";

    private final CrawlGovernor governor;
    private final Supplier<GovernorPolicy> policy;
    private final StateDirectory state;
    private final InstantSource clock;
    private final LongSupplier nanoTime = System::nanoTime;

    GovernorApi(CrawlGovernor governor, Supplier<GovernorPolicy> policy, StateDirectory state, InstantSource clock) {
        this.governor = governor;
        this.policy = policy;
        this.state = state;
        this.clock = clock;
    }

    /** The paths a worker's token opens. */
    static boolean isWorkerPath(String path) {
        return PERMITS.equals(path) || FEEDBACK.equals(path);
    }

    /** Serves {@code path} if it is the governor's; returns false otherwise. */
    boolean route(Request request, Response response, Callback callback, String path, String method)
            throws Exception {
        if (PERMITS.equals(path)) {
            return AdminHandler.only(method, "POST", response, callback) || permit(request, response, callback);
        }
        if (FEEDBACK.equals(path)) {
            return AdminHandler.only(method, "POST", response, callback) || feedback(request, response, callback);
        }
        if (DOMAINS.equals(path)) {
            return AdminHandler.only(method, "GET", response, callback)
                    || AdminHandler.json(response, callback, 200, governor.snapshot());
        }
        if (!path.startsWith(DOMAINS + "/")) {
            return false;
        }
        String rest = path.substring(DOMAINS.length() + 1);
        int slash = rest.indexOf('/');
        String domain = slash < 0 ? rest : rest.substring(0, slash);
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        if (action.isEmpty()) {
            if (AdminHandler.only(method, "GET", response, callback)) {
                return true;
            }
            var view = governor.domain(checked(domain));
            return view.isPresent() ? AdminHandler.json(response, callback, 200, view.get())
                    : AdminHandler.error(response, callback, 404, "the governor has no state for " + domain);
        }
        if (AdminHandler.only(method, "POST", response, callback)) {
            return true;
        }
        return switch (action) {
            case "rate" -> {
                RateRequest body = AdminHandler.read(request, RateRequest.class);
                if (body.requestsPerSecond() == null) {
                    throw field("requestsPerSecond", "is required");
                }
                yield operate(request, response, callback, domain, "domain.rate",
                        "set the rate of " + domain + " to " + body.requestsPerSecond() + " requests per second",
                        name -> governor.setRate(name, body.requestsPerSecond()), "requestsPerSecond");
            }
            case "min-delay" -> {
                MinDelayRequest body = AdminHandler.read(request, MinDelayRequest.class);
                if (body.millis() == null) {
                    throw field("millis", "is required (0 removes the minimum delay)");
                }
                yield operate(request, response, callback, domain, "domain.min-delay",
                        "set the minimum delay of " + domain + " to " + body.millis() + " ms",
                        name -> governor.setMinDelay(name, body.millis()), "millis");
            }
            case "reset" -> {
                AdminHandler.body(request);
                yield operate(request, response, callback, domain, "domain.reset",
                        "reset what the governor learned about " + domain, governor::reset, "domain");
            }
            case "revive" -> {
                AdminHandler.body(request);
                yield operate(request, response, callback, domain, "domain.revive", "revived " + domain,
                        governor::revive, "domain");
            }
            default -> AdminHandler.error(response, callback, 404, "no such domain action: " + action
                    + " (rate, min-delay, reset, revive)");
        };
    }

    /**
     * What {@code POST /api/v1/permits} accepts: one {@code domain}, or {@code domains}, a worker's frontier
     * slice (at most {@link CrawlGovernor#MAX_PERMIT_DOMAINS}), of which the first ready is granted.
     */
    record PermitRequest(String domain, List<String> domains, Long holdMillis) {
    }

    /** What {@code POST /api/v1/feedback} accepts. */
    record FeedbackRequest(String domain, Integer status, Long retryAfterSeconds, Long latencyMillis,
            Double crawlDelaySeconds) {
    }

    record RateRequest(Double requestsPerSecond) {
    }

    record MinDelayRequest(Long millis) {
    }

    private boolean permit(Request request, Response response, Callback callback) throws IOException {
        PermitRequest body = AdminHandler.read(request, PermitRequest.class);
        Supplier<CompletionStage<Permit>> ask = permitCall(body);
        long hold = body.holdMillis() == null ? 0 : body.holdMillis();
        if (hold < 0) {
            throw field("holdMillis", "must not be negative");
        }
        long held = Math.min(hold, policy.get().maxHoldMillis());
        long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(held);
        answerPermit(request, response, callback, ask, deadline);
        return true;
    }

    /** The governor's call the request asks for, its names checked first: a bad one changes nothing. */
    private Supplier<CompletionStage<Permit>> permitCall(PermitRequest body) {
        if (body.domains() == null) {
            String domain = checked(body.domain());
            return () -> governor.acquireAsync(domain);
        }
        if (body.domain() != null) {
            throw field("domains", "give domain or domains, not both");
        }
        List<String> domains = body.domains();
        if (domains.isEmpty() || domains.size() > CrawlGovernor.MAX_PERMIT_DOMAINS) {
            throw field("domains", "must name 1 to " + CrawlGovernor.MAX_PERMIT_DOMAINS + " domains, named "
                    + domains.size());
        }
        List<String> names = new ArrayList<>(domains.size());
        for (int i = 0; i < domains.size(); i++) {
            try {
                names.add(DomainNames.normalise(domains.get(i)));
            } catch (IllegalArgumentException e) {
                throw field("domains[" + i + "]", e.getMessage());
            }
        }
        return () -> governor.acquireAnyAsync(names);
    }

    /**
     * Answers now, or, while the caller is willing to be held, asks again when the wait is over. In cluster
     * mode the governor's answer comes from Redis: the reply is written when it completes (within the
     * cluster's deadline), no thread waits for it.
     */
    private void answerPermit(Request request, Response response, Callback callback,
            Supplier<CompletionStage<Permit>> ask, long deadline) {
        try {
            ask.get().whenComplete((permit, failure) -> {
                if (failure != null) {
                    callback.failed(failure);
                    return;
                }
                try {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - nanoTime.getAsLong());
                    if (permit.granted() || permit.reason() == PermitReason.GIVEN_UP || left <= 0) {
                        AdminHandler.json(response, callback, 200, permitJson(permit, governor.pacing()));
                        return;
                    }
                    long delay = Math.min(permit.waitMillis(), left);
                    request.getComponents().getScheduler().schedule(
                            () -> answerPermit(request, response, callback, ask, deadline), delay,
                            TimeUnit.MILLISECONDS);
                } catch (Throwable e) {
                    callback.failed(e);
                }
            });
        } catch (Throwable failure) {
            callback.failed(failure);
        }
    }

    /** {@link #permitJson(Permit)}, and in cluster mode where the pace was decided: CLUSTER or DEGRADED. */
    static Map<String, Object> permitJson(Permit permit, Pacing pacing) {
        Map<String, Object> json = permitJson(permit);
        if (pacing.mode() != Pacing.Mode.LOCAL) {
            json.put("pacing", pacing.mode());
        }
        return json;
    }

    /** The wire form: no wait or reason on a grant, no wait for a domain given up. */
    static Map<String, Object> permitJson(Permit permit) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("domain", permit.domain());
        json.put("granted", permit.granted());
        if (!permit.granted()) {
            if (permit.waitMillis() >= 0) {
                json.put("waitMillis", permit.waitMillis());
            }
            json.put("reason", permit.reason());
        }
        return json;
    }

    private boolean feedback(Request request, Response response, Callback callback) throws IOException {
        FeedbackRequest body = AdminHandler.read(request, FeedbackRequest.class);
        List<FieldError> errors = new ArrayList<>();
        String domain = null;
        try {
            domain = checked(body.domain());
        } catch (AdminHandler.BadRequest e) {
            errors.addAll(e.errors);
        }
        if (body.status() == null || body.status() < 0 || body.status() > 999) {
            errors.add(new FieldError("status", "is required: the HTTP status, or 0 when no response came"));
        }
        if (body.retryAfterSeconds() != null && body.retryAfterSeconds() < 0) {
            errors.add(new FieldError("retryAfterSeconds", "must not be negative"));
        }
        if (body.latencyMillis() != null && body.latencyMillis() < 0) {
            errors.add(new FieldError("latencyMillis", "must not be negative"));
        }
        Double crawlDelay = body.crawlDelaySeconds();
        if (crawlDelay != null && !(crawlDelay >= 0 && crawlDelay <= 86_400)) {
            errors.add(new FieldError("crawlDelaySeconds", "must be between 0 and 86400 seconds"));
        }
        if (!errors.isEmpty()) {
            throw new AdminHandler.BadRequest(400, errors);
        }
        // Answered once the cluster has taken it (or, within the deadline, this node alone): a worker told
        // "done" may ask any node next and find the floor it reported.
        Feedback feedback = new Feedback(domain, body.status(), body.retryAfterSeconds(),
                body.latencyMillis() == null ? -1 : body.latencyMillis(), crawlDelay);
        governor.reportAsync(feedback).whenComplete((judged, failure) -> {
            if (failure != null) {
                callback.failed(failure);
                return;
            }
            if (judged != Pacing.Mode.LOCAL) {
                response.getHeaders().put(PACING_HEADER, judged.name());
            }
            response.setStatus(204);
            callback.succeeded();
        });
        return true;
    }

    private boolean operate(Request request, Response response, Callback callback, String domain, String action,
            String detail, Function<String, DomainView> change, String field) throws IOException {
        String name = checked(domain);
        JsonNode before = governor.domain(name).map(GovernorApi::audited).orElse(null);
        DomainView after;
        try {
            after = change.apply(name);
        } catch (IllegalArgumentException e) {
            throw field(field, e.getMessage());
        }
        state.audit().append(new AuditEntry(clock.instant(), AdminHandler.operator(request), action, detail, before,
                audited(after)));
        return AdminHandler.json(response, callback, 200, after);
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

    private static String checked(String domain) {
        try {
            return DomainNames.normalise(domain);
        } catch (IllegalArgumentException e) {
            throw field("domain", e.getMessage());
        }
    }

    private static AdminHandler.BadRequest field(String name, String message) {
        return new AdminHandler.BadRequest(400, List.of(new FieldError(name, message)));
    }
}
