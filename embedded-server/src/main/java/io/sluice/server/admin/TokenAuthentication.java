package io.sluice.server.admin;

import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.Role;
import io.sluice.server.state.TokenStore;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Every admin call carries {@code Authorization: Bearer <token>}: an unknown or revoked token is 401. What passes
 * carries its {@link Caller} to the resources, where its role meets the route's ({@link Resource}). Either way
 * the listener's {@link AdminConnections} learns whether the connection is an operator's, and of which role: a call
 * whose role has no room left on the listener is a {@code 503} with {@code Retry-After}, its connection closed.
 */
final class TokenAuthentication extends Handler.Wrapper {
    private final TokenStore tokens;

    /** Handing on to the handler set with {@link #setHandler}. */
    TokenAuthentication(TokenStore tokens) {
        this.tokens = tokens;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Optional<TokenStore.Grant> grant = grant(request);
        boolean room = AdminConnections.authenticated(request, grant.map(TokenStore.Grant::role).orElse(null));
        if (grant.isEmpty()) {
            closeIfBodyUnread(request, response);
            response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"sluice\"");
            return ApiMessages.error(response, callback, 401, "missing, wrong or revoked bearer token");
        }
        if (!room) {
            // A clear answer, and the connection goes: its room is kept for the roles above its token's.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            return ApiMessages.error(response, callback, 503, "the admin listener is full for "
                    + grant.get().role().wireName() + " tokens: its last connections are kept for "
                    + (grant.get().role() == Role.WORKER ? "read and admin tokens" : "admin tokens")
                    + "; try again shortly");
        }
        String operator = grant.get().role() == Role.ADMIN
                ? AuditEntry.claimedName(request.getHeaders().get(Caller.OPERATOR_HEADER)) : null;
        new Caller(grant.get().name(), grant.get().role(), operator).attachTo(request);
        return super.handle(request, response, callback);
    }

    /**
     * True while the token {@code request} was let in with is still live: a long response (the snapshot stream)
     * asks again as it goes, so revoking a token ends what it had opened.
     */
    boolean stillValid(Request request) {
        Optional<TokenStore.Grant> now = grant(request);
        Caller caller = Caller.of(request);
        return now.isPresent() && now.get().name().equals(caller.token()) && now.get().role() == caller.role();
    }

    private Optional<TokenStore.Grant> grant(Request request) {
        String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? tokens.authenticate(header.substring(7).trim()) : Optional.empty();
    }

    /**
     * A refusal is answered without reading the request's body, after which the server closes the connection; said
     * in the answer, a client does not send its next request on it (seen: a worker's next call failing with "no
     * bytes" on the connection a refused POST had used).
     */
    static void closeIfBodyUnread(Request request, Response response) {
        if (request.getLength() != 0) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
    }
}
