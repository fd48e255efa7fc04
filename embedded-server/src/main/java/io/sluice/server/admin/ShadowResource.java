package io.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.engine.whatif.WhatIfReport;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.Role;
import java.time.Instant;
import java.time.InstantSource;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code /api/v1/policy/shadow}: install a candidate policy beside the live one ({@code PUT}), read what it would
 * have done ({@code GET}), remove it ({@code DELETE}); promoting it is {@link ShadowPromoteResource}. Installing
 * and removing are audited; the shadow itself is not saved: a restart drops it.
 */
final class ShadowResource extends Resource {
    private static final int DEFAULT_CLIENTS = 100;
    private static final int MAX_CLIENTS = 10_000;

    private final LiveShadow shadow;
    private final ThrottleEngine engine;
    private final AuditLog audit;
    private final InstantSource clock;

    /**
     * What {@code GET} and {@code PUT} answer.
     *
     * @param basedOnVersion the live policy's version when the candidate was installed
     * @param liveVersion    the live policy's version now (promote with {@code If-Match} on it)
     */
    record ShadowView(Policy policy, Instant installedAt, long basedOnVersion, long liveVersion,
                      WhatIfReport report) {
    }

    ShadowResource(LiveShadow shadow, ThrottleEngine engine, AuditLog audit, InstantSource clock) {
        super(Access.of("GET", Role.READ).and("PUT", Role.ADMIN).and("DELETE", Role.ADMIN));
        this.shadow = shadow;
        this.engine = engine;
        this.audit = audit;
        this.clock = clock;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        return switch (method) {
            case "GET" -> view(request, response, callback);
            case "PUT" -> install(request, response, callback);
            default -> remove(request, response, callback);
        };
    }

    private boolean view(Request request, Response response, Callback callback) throws Exception {
        LiveShadow.Candidate candidate = shadow.candidate();
        WhatIfReport report = shadow.report(clients(request));
        if (candidate == null || report == null) {
            return none(response, callback);
        }
        return ApiMessages.json(response, callback, 200, new ShadowView(candidate.policy(),
                candidate.installedAt(), candidate.basedOnVersion(), engine.policy().version(), report));
    }

    private boolean install(Request request, Response response, Callback callback) throws Exception {
        Policy proposed = ApiMessages.parseRequired(ApiMessages.body(request), Policy.class);
        LiveShadow.Candidate before = shadow.candidate();
        LiveShadow.Candidate installed;
        try {
            installed = shadow.install(proposed);
        } catch (PolicyValidationException e) {
            throw new ApiError(400, e.errors());
        }
        audit(request, "shadow.install", "shadow policy installed beside live version "
                + installed.basedOnVersion(), before == null ? null : tree(before.policy()), tree(installed.policy()));
        return ApiMessages.json(response, callback, 200, new ShadowView(installed.policy(),
                installed.installedAt(), installed.basedOnVersion(), engine.policy().version(),
                shadow.report(DEFAULT_CLIENTS)));
    }

    private boolean remove(Request request, Response response, Callback callback) throws Exception {
        LiveShadow.Candidate removed = shadow.remove();
        if (removed == null) {
            return none(response, callback);
        }
        audit(request, "shadow.remove", "shadow policy removed", tree(removed.policy()), null);
        return ApiMessages.noContent(response, callback);
    }

    static boolean none(Response response, Callback callback) throws Exception {
        return ApiMessages.error(response, callback, 404, "no shadow policy is installed");
    }

    private void audit(Request request, String action, String detail, JsonNode before, JsonNode after)
            throws Exception {
        PolicyChanges.Author author = Caller.of(request).author();
        audit.append(new AuditEntry(0, clock.instant(), author.who(), author.operator(), action, detail,
                before, after));
    }

    private static JsonNode tree(Policy policy) {
        return PolicyJson.mapper().valueToTree(policy);
    }

    private static int clients(Request request) {
        Fields query = Request.extractQueryParameters(request);
        String value = query.getValue("clients");
        if (value == null) {
            return DEFAULT_CLIENTS;
        }
        try {
            return Math.max(0, Math.min(MAX_CLIENTS, Integer.parseInt(value)));
        } catch (NumberFormatException e) {
            throw ApiError.field("clients", "must be a number");
        }
    }
}
