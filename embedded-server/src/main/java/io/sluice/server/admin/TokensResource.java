package io.sluice.server.admin;

import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.Role;
import io.sluice.server.state.TokenStore;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /api/v1/tokens} lists the tokens (names and roles, never secrets); {@code POST} adds one and
 * answers its secret, the only time it is shown; {@code DELETE /api/v1/tokens/{name}} revokes one at once.
 * Admin only.
 */
final class TokensResource extends Resource {
    private final TokenStore tokens;
    private final AuditLog audit;
    private final InstantSource clock;
    private final boolean one;

    /** What {@code POST /api/v1/tokens} accepts. */
    record TokenRequest(String name, String role) {
    }

    /** @param one true for {@code /api/v1/tokens/{name}}, false for the collection */
    TokensResource(TokenStore tokens, AuditLog audit, InstantSource clock, boolean one) {
        super(one ? Access.of("DELETE", Role.ADMIN) : Access.of("GET", Role.ADMIN).and("POST", Role.ADMIN));
        this.tokens = tokens;
        this.audit = audit;
        this.clock = clock;
        this.one = one;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        Caller caller = Caller.of(request);
        if (one) {
            String name = pathParameter(request, "name");
            if (!tokens.revoke(name)) {
                return ApiMessages.error(response, callback, 404, "no token named " + name);
            }
            audit.append(new AuditEntry(0, clock.instant(), caller.token(), caller.operator(), "token.revoke",
                    "revoked the token " + name, null, null));
            return ApiMessages.noContent(response, callback);
        }
        if ("GET".equals(method)) {
            return ApiMessages.json(response, callback, 200, tokens.list());
        }
        TokenRequest body = ApiMessages.read(request, TokenRequest.class);
        Role role;
        try {
            role = Role.parse(body.role());
        } catch (IllegalArgumentException e) {
            throw ApiError.field("role", e.getMessage());
        }
        String secret;
        try {
            secret = tokens.add(body.name(), role);
        } catch (IllegalArgumentException e) {
            throw ApiError.field("name", e.getMessage());
        }
        audit.append(new AuditEntry(0, clock.instant(), caller.token(), caller.operator(), "token.add",
                "added the token " + body.name() + " (" + role.wireName() + ")", null, null));
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("name", body.name());
        answer.put("role", role);
        answer.put("token", secret);
        return ApiMessages.json(response, callback, 201, answer);
    }
}
