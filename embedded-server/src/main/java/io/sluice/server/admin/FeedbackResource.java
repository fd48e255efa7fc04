package io.sluice.server.admin;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.Feedback;
import io.sluice.engine.governor.Pacing;
import io.sluice.engine.policy.FieldError;
import io.sluice.server.state.Role;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code POST /api/v1/feedback}: what a worker saw when it fetched, for the governor to pace the domain by. */
final class FeedbackResource extends Resource {
    /**
     * In cluster mode, on the answer: {@code CLUSTER} when the cluster took the report, {@code DEGRADED} when
     * only this node did (Redis unreachable): a worker may send it again once the cluster is back.
     */
    static final String PACING_HEADER = "Sluice-Pacing";

    private final CrawlGovernor governor;

    /** What the call accepts. */
    record FeedbackRequest(String domain, Integer status, Long retryAfterSeconds, Long latencyMillis,
            Double crawlDelaySeconds) {
    }

    FeedbackResource(CrawlGovernor governor) {
        super(Access.of("POST", Role.WORKER));
        this.governor = governor;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        FeedbackRequest body = ApiMessages.read(request, FeedbackRequest.class);
        List<FieldError> errors = new ArrayList<>();
        String domain = null;
        try {
            domain = DomainResource.checked(body.domain());
        } catch (ApiError e) {
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
            throw new ApiError(400, errors);
        }
        // Answered once the cluster has taken it (or, within the deadline, this node alone): a worker told
        // "done" may ask any node next and find the floor it reported. It counts only for a grant the token was
        // given (docs/manual/governor.md, "Several workers, one domain"); one without is ignored, and counted.
        Feedback feedback = new Feedback(domain, body.status(), body.retryAfterSeconds(),
                body.latencyMillis() == null ? -1 : body.latencyMillis(), crawlDelay);
        governor.reportAsync(feedback, Caller.of(request).token()).whenComplete((judged, failure) -> {
            if (failure != null) {
                callback.failed(failure);
                return;
            }
            if (judged != Pacing.Mode.LOCAL) {
                response.getHeaders().put(PACING_HEADER, judged.name());
            }
            ApiMessages.noContent(response, callback);
        });
        return true;
    }
}
