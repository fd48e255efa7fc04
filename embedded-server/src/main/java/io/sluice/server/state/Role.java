package io.sluice.server.state;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * What a token may do. Each admin route declares the role each of its methods needs, beside it; the admin API's
 * permissions compare that with the caller's role, in one place (docs/manual/admin-api.md, "Tokens and roles").
 */
public enum Role {
    /** Everything. */
    ADMIN,
    /** Reading: snapshot, stream, policy, bans, audit, domains, cluster, metrics. */
    READ,
    /** A crawler worker: permits and feedback. */
    WORKER;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code admin}, {@code read} or {@code worker}, any case. */
    @JsonCreator
    public static Role parse(String text) {
        for (Role role : values()) {
            if (role.wireName().equalsIgnoreCase(text == null ? "" : text.trim())) {
                return role;
            }
        }
        throw new IllegalArgumentException("role must be admin, read or worker, not '" + text + "'");
    }
}
