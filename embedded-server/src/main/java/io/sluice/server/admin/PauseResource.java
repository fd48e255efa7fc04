package io.sluice.server.admin;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code POST /api/v1/pause} and {@code /resume}: the whole service, or one class with {@code {"class": ...}}. */
final class PauseResource extends Resource {
    private final PolicyChanges changes;
    private final boolean pause;

    /** What the calls accept (the body is optional). */
    record PauseRequest(String clazz) {
        @JsonCreator
        static PauseRequest of(@JsonProperty("class") String clazz) {
            return new PauseRequest(clazz);
        }
    }

    PauseResource(PolicyChanges changes, boolean pause) {
        super(Access.of("POST", Role.ADMIN));
        this.changes = changes;
        this.pause = pause;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        String body = ApiMessages.body(request);
        RequestClass target = null;
        if (!body.isBlank()) {
            PauseRequest parsed = ApiMessages.parse(body, PauseRequest.class);
            if (parsed.clazz() != null) {
                try {
                    target = RequestClass.valueOf(parsed.clazz().toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw ApiError.field("class", "must be BROWSER, CRAWLER or BOT, not '" + parsed.clazz() + "'");
                }
            }
        }
        RequestClass only = target;
        String what = (pause ? "paused " : "resumed ") + (only == null ? "the whole service" : only.name());
        Policy after = changes.apply(Caller.of(request).author(), pause ? "pause" : "resume", what,
                p -> p.withPause(next(p.pause(), only)), Policy::pause);
        return ApiMessages.json(response, callback, 200, after.pause());
    }

    private Policy.Pause next(Policy.Pause now, RequestClass only) {
        if (only == null) {
            return pause ? new Policy.Pause(true, now.classes()) : Policy.Pause.NONE;
        }
        List<RequestClass> classes = new ArrayList<>(now.classes());
        classes.remove(only);
        if (pause) {
            classes.add(only);
        }
        return new Policy.Pause(now.all(), classes);
    }
}
