package io.sluice.server.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The admin API (JSON under {@code /api/v1}, and {@code /metrics}). Every call needs the bearer token,
 * compared in constant time. Every change goes, under one lock: engine (validated, versioned swap), then
 * {@code policy.json} (durable), then the audit log, then the answer; so an acknowledged change is on disk
 * and a rejected one never is.
 */
public final class AdminHandler extends Handler.Abstract {
    static final String PREFIX = "/api/v1/";
    static final int MAX_BODY_BYTES = 1 << 20;
    private static final ObjectMapper JSON = PolicyJson.mapper();

    private final ThrottleEngine engine;
    private final StateDirectory state;
    private final InstantSource clock;
    private final List<Handler> extraRoutes;
    private final byte[] token;
    private final byte[] workerToken;
    private final GovernorApi governor;
    private final ShadowApi shadow;
    private final SluiceMetrics metrics;
    private final Object writeLock = new Object();

    public AdminHandler(ThrottleEngine engine, CrawlGovernor governor, LiveShadow shadow, StateDirectory state,
                        InstantSource clock, List<Handler> extraRoutes) {
        this.engine = engine;
        this.shadow = new ShadowApi(shadow, engine, state, clock, this::replacePolicy);
        this.governor = new GovernorApi(governor, () -> engine.policy().governor(), state, clock);
        this.workerToken = state.workerToken().getBytes(StandardCharsets.UTF_8);
        this.state = state;
        this.clock = clock;
        this.extraRoutes = List.copyOf(extraRoutes);
        this.token = state.adminToken().getBytes(StandardCharsets.UTF_8);
        this.metrics = new SluiceMetrics(engine::snapshot, governor::snapshot);
        for (Handler route : this.extraRoutes) {
            addBean(route);
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = request.getHttpURI().getPath();
        if (!authorised(request, path)) {
            response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"sluice\"");
            return error(response, callback, 401, "missing or wrong bearer token");
        }
        String method = request.getMethod();
        try {
            return route(request, response, callback, path, method);
        } catch (BadRequest e) {
            return json(response, callback, e.status, Map.of("errors", e.errors));
        }
    }

    private boolean route(Request request, Response response, Callback callback, String path, String method)
            throws Exception {
        switch (path) {
            case "/metrics":
                return only(method, "GET", response, callback)
                        || text(response, callback, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
            case PREFIX + "snapshot":
                return only(method, "GET", response, callback) || json(response, callback, 200, engine.snapshot());
            case PREFIX + "stream":
                if (only(method, "GET", response, callback)) {
                    return true;
                }
                new SnapshotStream(engine::snapshot, request, response, callback).start();
                return true;
            case PREFIX + "policy":
                if (HttpMethod.GET.is(method)) {
                    Policy policy = engine.policy();
                    response.getHeaders().put(HttpHeader.ETAG, etag(policy.version()));
                    return json(response, callback, 200, policy);
                }
                return only(method, "GET, PUT", response, callback) || putPolicy(request, response, callback);
            case PREFIX + "bans":
                if (HttpMethod.GET.is(method)) {
                    return json(response, callback, 200, engine.policy().bans());
                }
                return only(method, "GET, POST", response, callback) || addBan(request, response, callback);
            case PREFIX + "pause":
            case PREFIX + "resume":
                return only(method, "POST", response, callback)
                        || pause(request, response, callback, path.endsWith("pause"));
            case PREFIX + "audit":
                return only(method, "GET", response, callback) || json(response, callback, 200,
                        state.audit().newestFirst(limit(request)));
            default:
                if (path.startsWith(PREFIX + "bans/")) {
                    return only(method, "DELETE", response, callback)
                            || removeBan(request, response, callback, path.substring((PREFIX + "bans/").length()));
                }
                if (path.startsWith(PREFIX + "policy/shadow")) {
                    return shadow.route(request, response, callback, path, method);
                }
                if (governor.route(request, response, callback, path, method)) {
                    return true;
                }
                for (Handler route : extraRoutes) {
                    if (route.handle(request, response, callback)) {
                        return true;
                    }
                }
                return error(response, callback, 404, "no such path: " + path);
        }
    }

    /** The admin token opens everything; the workers' token only the permit and feedback calls. */
    private boolean authorised(Request request, String path) {
        String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = header.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        boolean admin = MessageDigest.isEqual(given, token);
        boolean worker = MessageDigest.isEqual(given, workerToken);
        return admin || worker && GovernorApi.isWorkerPath(path);
    }

    private boolean putPolicy(Request request, Response response, Callback callback) throws Exception {
        // Read the body even when the answer is an error: an unread body makes Jetty close the connection,
        // and a client reusing it for its next call would see it die under it.
        String body = body(request);
        replacePolicy(request, response, callback, () -> parseRequired(body, Policy.class), "policy.replace", "");
        return true; // answered either way
    }

    /**
     * The one path a whole new policy takes ({@code PUT /policy}, promoting the shadow): the {@code If-Match}
     * version check, validation, the swap, {@code policy.json}, the audit entry, the answer.
     *
     * @return the installed policy, or null when the answer is an error (already sent)
     */
    Policy replacePolicy(Request request, Response response, Callback callback, Supplier<Policy> proposal,
                         String action, String detailPrefix) throws Exception {
        String ifMatch = request.getHeaders().get(HttpHeader.IF_MATCH);
        if (ifMatch == null) {
            error(response, callback, 428, "If-Match with the policy's ETag is required");
            return null;
        }
        long expected;
        try {
            expected = Long.parseLong(ifMatch.replace("W/", "").replace("\"", "").trim());
        } catch (NumberFormatException e) {
            error(response, callback, 400, "If-Match must be a policy ETag such as \"7\"");
            return null;
        }
        Policy proposed = proposal.get();
        Policy installed;
        synchronized (writeLock) {
            Policy before = engine.policy();
            try {
                installed = engine.replacePolicy(expected, proposed);
            } catch (PolicyValidationException e) {
                throw new BadRequest(400, e.errors());
            } catch (PolicyConflictException e) {
                response.getHeaders().put(HttpHeader.ETAG, etag(e.currentVersion()));
                json(response, callback, 412, Map.of("error", "the policy changed since version "
                        + expected + "; reload and apply again", "currentVersion", e.currentVersion()));
                return null;
            }
            persist(request, installed, action, detailPrefix + "policy version " + before.version() + " -> "
                    + installed.version(), JSON.valueToTree(before), JSON.valueToTree(installed));
        }
        response.getHeaders().put(HttpHeader.ETAG, etag(installed.version()));
        json(response, callback, 200, installed);
        return installed;
    }

    /** What {@code POST /api/v1/bans} accepts. */
    record BanRequest(String type, String value, String reason, Long durationSeconds) {
    }

    private boolean addBan(Request request, Response response, Callback callback) throws Exception {
        BanRequest body = read(request, BanRequest.class);
        List<FieldError> errors = new ArrayList<>();
        BanType type = null;
        if (body.type() == null) {
            errors.add(new FieldError("type", "is required: ip, agent or client"));
        } else {
            try {
                type = BanType.valueOf(body.type().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("type", "must be ip, agent or client, not '" + body.type() + "'"));
            }
        }
        if (body.value() == null || body.value().isBlank()) {
            errors.add(new FieldError("value", "is required"));
        }
        if (body.durationSeconds() != null && body.durationSeconds() <= 0) {
            errors.add(new FieldError("durationSeconds", "must be positive, or left out for a permanent ban"));
        }
        if (!errors.isEmpty()) {
            throw new BadRequest(400, errors);
        }
        Instant now = clock.instant();
        Ban ban = new Ban(UUID.randomUUID().toString(), type, body.value().trim(),
                body.reason() == null ? "" : body.reason(), operator(request), now,
                body.durationSeconds() == null ? null : now.plus(Duration.ofSeconds(body.durationSeconds())));
        change(request, p -> p.withBans(append(p.bans(), ban)), "ban.add",
                "banned " + body.type() + " " + ban.value() + (ban.expiresAt() == null ? "" : " until "
                        + ban.expiresAt()), p -> p.bans().contains(ban) ? ban : null);
        return json(response, callback, 201, ban);
    }

    private boolean removeBan(Request request, Response response, Callback callback, String id) throws Exception {
        Ban existing = engine.policy().bans().stream().filter(b -> b.id().equals(id)).findFirst().orElse(null);
        if (existing == null) {
            return error(response, callback, 404, "no ban with id " + id);
        }
        change(request, p -> p.withBans(p.bans().stream().filter(b -> !b.id().equals(id)).toList()),
                "ban.remove", "unbanned " + existing.type().name().toLowerCase(java.util.Locale.ROOT) + " "
                        + existing.value(), p -> p.bans().contains(existing) ? existing : null);
        response.setStatus(204);
        callback.succeeded();
        return true;
    }

    /** What {@code POST /api/v1/pause} and {@code /resume} accept (the body is optional). */
    record PauseRequest(String clazz) {
        @com.fasterxml.jackson.annotation.JsonCreator
        static PauseRequest of(@com.fasterxml.jackson.annotation.JsonProperty("class") String clazz) {
            return new PauseRequest(clazz);
        }
    }

    private boolean pause(Request request, Response response, Callback callback, boolean pause) throws Exception {
        String body = body(request);
        RequestClass target = null;
        if (!body.isBlank()) {
            PauseRequest parsed = parse(body, PauseRequest.class);
            if (parsed.clazz() != null) {
                try {
                    target = RequestClass.valueOf(parsed.clazz().toUpperCase(java.util.Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(400, List.of(new FieldError("class",
                            "must be BROWSER, CRAWLER or BOT, not '" + parsed.clazz() + "'")));
                }
            }
        }
        RequestClass only = target;
        UnaryOperator<Policy> change = p -> p.withPause(nextPause(p.pause(), only, pause));
        String what = (pause ? "paused " : "resumed ") + (only == null ? "the whole service" : only.name());
        Policy after = change(request, change, pause ? "pause" : "resume", what, Policy::pause);
        return json(response, callback, 200, after.pause());
    }

    private static Policy.Pause nextPause(Policy.Pause now, RequestClass only, boolean pause) {
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

    /**
     * Applies a change through the engine, persists it and audits it, all under the write lock.
     *
     * @param audited the part of the policy the audit log records before and after (null: none)
     */
    private Policy change(Request request, UnaryOperator<Policy> change, String action, String detail,
                          Function<Policy, Object> audited) throws Exception {
        synchronized (writeLock) {
            Policy old = engine.policy();
            Policy installed;
            try {
                installed = engine.updatePolicy(change);
            } catch (PolicyValidationException e) {
                throw new BadRequest(400, e.errors());
            }
            persist(request, installed, action, detail, tree(audited, old), tree(audited, installed));
            return installed;
        }
    }

    private static JsonNode tree(Function<Policy, Object> part, Policy policy) {
        Object value = part == null ? null : part.apply(policy);
        return value == null ? null : JSON.valueToTree(value);
    }

    private void persist(Request request, Policy installed, String action, String detail, JsonNode before,
                         JsonNode after) throws IOException {
        state.savePolicy(installed);
        state.audit().append(new AuditEntry(clock.instant(), operator(request), action, detail, before, after));
    }

    private static <T> List<T> append(List<T> list, T item) {
        List<T> copy = new ArrayList<>(list);
        copy.add(item);
        return copy;
    }

    static String operator(Request request) {
        String who = request.getHeaders().get("X-Sluice-Operator");
        return who == null || who.isBlank() ? "admin" : who.trim();
    }

    private static int limit(Request request) {
        Fields query = Request.extractQueryParameters(request);
        String value = query.getValue("limit");
        if (value == null) {
            return 100;
        }
        try {
            return Math.max(1, Math.min(10_000, Integer.parseInt(value)));
        } catch (NumberFormatException e) {
            throw new BadRequest(400, List.of(new FieldError("limit", "must be a number")));
        }
    }

    static String body(Request request) throws IOException {
        long length = request.getLength();
        if (length > MAX_BODY_BYTES) {
            throw new BadRequest(413, List.of(new FieldError("body", "larger than " + MAX_BODY_BYTES + " bytes")));
        }
        String body = Content.Source.asString(request, StandardCharsets.UTF_8);
        if (body.length() > MAX_BODY_BYTES) {
            throw new BadRequest(413, List.of(new FieldError("body", "larger than " + MAX_BODY_BYTES + " bytes")));
        }
        return body;
    }

    static <T> T read(Request request, Class<T> type) throws IOException {
        return parseRequired(body(request), type);
    }

    static <T> T parseRequired(String body, Class<T> type) {
        if (body.isBlank()) {
            throw new BadRequest(400, List.of(new FieldError("body", "a JSON body is required")));
        }
        return parse(body, type);
    }

    private static <T> T parse(String body, Class<T> type) {
        try {
            return JSON.readValue(body, type);
        } catch (MismatchedInputException e) {
            String field = e.getPath().stream()
                    .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            String message = e instanceof InvalidFormatException invalid
                    ? "'" + invalid.getValue() + "' is not a valid " + invalid.getTargetType().getSimpleName()
                    : e.getOriginalMessage();
            throw new BadRequest(400, List.of(new FieldError(field.isEmpty() ? "body" : field, message)));
        } catch (JsonProcessingException e) {
            throw new BadRequest(400, List.of(new FieldError("body", "malformed JSON: " + e.getOriginalMessage())));
        }
    }

    static String etag(long version) {
        return "\"" + version + "\"";
    }

    /** Answers 405 and returns true unless {@code method} is one of {@code allowed}. */
    static boolean only(String method, String allowed, Response response, Callback callback)
            throws JsonProcessingException {
        for (String each : allowed.split(", ")) {
            if (each.equals(method)) {
                return false;
            }
        }
        response.getHeaders().put(HttpHeader.ALLOW, allowed);
        return error(response, callback, 405, method + " is not allowed here; use " + allowed);
    }

    static boolean error(Response response, Callback callback, int status, String message)
            throws JsonProcessingException {
        return json(response, callback, status, Map.of("error", message));
    }

    static boolean json(Response response, Callback callback, int status, Object body)
            throws JsonProcessingException {
        return text(response, callback, "application/json", status, JSON.writeValueAsString(body));
    }

    private static boolean text(Response response, Callback callback, String type, String body) {
        return text(response, callback, type, 200, body);
    }

    private static boolean text(Response response, Callback callback, String type, int status, String body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        Content.Sink.write(response, true, body, callback);
        return true;
    }

    /** A request the API refuses with field errors; nothing was changed. */
    static final class BadRequest extends RuntimeException {
        final int status;
        final List<FieldError> errors;

        BadRequest(int status, List<FieldError> errors) {
            super(errors.toString(), null, false, false);
            this.status = status;
            this.errors = errors;
        }
    }
}
