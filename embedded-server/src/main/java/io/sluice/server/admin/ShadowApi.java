package io.sluice.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.whatif.LiveShadow;
import io.sluice.engine.whatif.WhatIfReport;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.StateDirectory;
import org.eclipse.jetty.http.HttpHeader;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The shadow policy ({@code /api/v1/policy/shadow}): install a candidate beside the live policy, read what it
 * would have done, remove it, or promote it to live through the same path as {@code PUT /api/v1/policy}
 * (If-Match, validation, {@code policy.json}, audit). Installing and removing are audited too; the shadow
 * itself is not saved: a restart drops it.
 */
final class ShadowApi {
    private static final String SHADOW = AdminHandler.PREFIX + "policy/shadow";
    private static final String PROMOTE = SHADOW + "/promote";
    private static final int DEFAULT_CLIENTS = 100;
    private static final int MAX_CLIENTS = 10_000;

    private final LiveShadow shadow;
    private final ThrottleEngine engine;
    private final StateDirectory state;
    private final InstantSource clock;
    private final PolicyChanges changes;

    /**
     * What {@code GET} and {@code PUT} answer.
     *
     * @param basedOnVersion the live policy's version when the candidate was installed
     * @param liveVersion    the live policy's version now (promote with {@code If-Match} on it)
     */
    record ShadowView(Policy policy, Instant installedAt, long basedOnVersion, long liveVersion,
                      WhatIfReport report) {
    }

    ShadowApi(LiveShadow shadow, ThrottleEngine engine, StateDirectory state, InstantSource clock,
              PolicyChanges changes) {
        this.shadow = shadow;
        this.engine = engine;
        this.state = state;
        this.clock = clock;
        this.changes = changes;
    }

    boolean route(Request request, Response response, Callback callback, String path, String method)
            throws Exception {
        if (SHADOW.equals(path)) {
            return switch (method) {
                case "GET" -> view(request, response, callback);
                case "PUT" -> install(request, response, callback);
                case "DELETE" -> remove(request, response, callback);
                default -> AdminHandler.only(method, "GET, PUT, DELETE", response, callback);
            };
        }
        if (PROMOTE.equals(path)) {
            return AdminHandler.only(method, "POST", response, callback) || promote(request, response, callback);
        }
        return AdminHandler.error(response, callback, 404, "no such path: " + path);
    }

    private boolean view(Request request, Response response, Callback callback) throws Exception {
        LiveShadow.Candidate candidate = shadow.candidate();
        WhatIfReport report = shadow.report(clients(request));
        if (candidate == null || report == null) {
            return none(response, callback);
        }
        return AdminHandler.json(response, callback, 200, new ShadowView(candidate.policy(),
                candidate.installedAt(), candidate.basedOnVersion(), engine.policy().version(), report));
    }

    private boolean install(Request request, Response response, Callback callback) throws Exception {
        Policy proposed = ApiMessages.parseRequired(AdminHandler.body(request), Policy.class);
        LiveShadow.Candidate before = shadow.candidate();
        LiveShadow.Candidate installed;
        try {
            installed = shadow.install(proposed);
        } catch (PolicyValidationException e) {
            throw new AdminHandler.BadRequest(400, e.errors());
        }
        audit(request, "shadow.install", "shadow policy installed beside live version "
                + installed.basedOnVersion(), before == null ? null : tree(before.policy()), tree(installed.policy()));
        return AdminHandler.json(response, callback, 200, new ShadowView(installed.policy(),
                installed.installedAt(), installed.basedOnVersion(), engine.policy().version(),
                shadow.report(DEFAULT_CLIENTS)));
    }

    private boolean remove(Request request, Response response, Callback callback) throws Exception {
        LiveShadow.Candidate removed = shadow.remove();
        if (removed == null) {
            return none(response, callback);
        }
        audit(request, "shadow.remove", "shadow policy removed", tree(removed.policy()), null);
        response.setStatus(204);
        callback.succeeded();
        return true;
    }

    private boolean promote(Request request, Response response, Callback callback) throws Exception {
        AdminHandler.body(request); // a body is not expected; read it so the connection stays usable
        LiveShadow.Candidate candidate = shadow.candidate();
        if (candidate == null) {
            return none(response, callback);
        }
        Long basedOn = ApiMessages.ifMatchVersion(request, response, callback);
        if (basedOn == null) {
            return true;
        }
        // the one change path (validate, persist with its audit entry, swap), like PUT /api/v1/policy
        Policy installed = changes.replace(Caller.of(request).author(), basedOn, candidate.policy(), "policy.promote",
                "promoted from shadow: ");
        shadow.remove();
        response.getHeaders().put(HttpHeader.ETAG, ApiMessages.etag(installed.version()));
        ApiMessages.json(response, callback, 200, installed);
        return true;
    }

    private static boolean none(Response response, Callback callback) throws Exception {
        return AdminHandler.error(response, callback, 404, "no shadow policy is installed");
    }

    private void audit(Request request, String action, String detail, JsonNode before, JsonNode after)
            throws Exception {
        PolicyChanges.Author author = Caller.of(request).author();
        state.audit().append(new AuditEntry(0, clock.instant(), author.who(), author.operator(), action, detail,
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
            throw new AdminHandler.BadRequest(400, List.of(new FieldError("clients", "must be a number")));
        }
    }
}
