package io.sluice.engine.policy;

import java.time.Instant;

/**
 * Rule 2: refuse with 403 whatever matches.
 *
 * @param id        stable identifier, used by {@code DELETE /api/v1/bans/{id}}
 * @param type      what {@code value} is matched against
 * @param value     an IP or CIDR ({@code IP}); a case-insensitive substring, or a regular expression
 *                  written {@code /.../} ({@code AGENT}); {@code ip|agent} exactly ({@code CLIENT})
 * @param reason    why, in the operator's words
 * @param author    who created it
 * @param createdAt when
 * @param expiresAt when it stops applying, or null for never
 */
public record Ban(
        String id,
        BanType type,
        String value,
        String reason,
        String author,
        Instant createdAt,
        Instant expiresAt) {

    /** True while the ban applies at {@code now}. */
    public boolean activeAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
