package io.sluice.server.admin;

import io.sluice.server.change.PolicyChanges;
import io.sluice.server.state.Role;
import org.eclipse.jetty.server.Request;

/**
 * Who is calling: the token's name and role, set by {@link TokenAuthentication} before any resource runs,
 * and the person an admin token's caller names with {@code X-Sluice-Operator} (a claim, recorded as such).
 *
 * @param token    the token's name: the audit's "who"
 * @param role     what the token may do
 * @param operator the person named by an admin caller, or null
 */
record Caller(String token, Role role, String operator) {
    private static final String ATTRIBUTE = Caller.class.getName();
    static final String OPERATOR_HEADER = "X-Sluice-Operator";

    static Caller of(Request request) {
        Caller caller = (Caller) request.getAttribute(ATTRIBUTE);
        if (caller == null) {
            throw new IllegalStateException("no caller: the request did not pass TokenAuthentication");
        }
        return caller;
    }

    void attachTo(Request request) {
        request.setAttribute(ATTRIBUTE, this);
    }

    PolicyChanges.Author author() {
        return new PolicyChanges.Author(token, operator);
    }

    /** The name shown as a ban's author: the person if one was named, else the token. */
    String displayName() {
        return operator == null ? token : operator;
    }
}
