package io.sluice.server.state;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One operator action, one line of the audit log.
 *
 * @param seq      the entry's place in the log, from 1, assigned when it is appended; pages of
 *                 {@code GET /api/v1/audit} are cut by it
 * @param at       when
 * @param who      the name of the token that made the change (authenticated)
 * @param operator the person an admin token's caller says they are ({@code X-Sluice-Operator}), recorded as
 *                 a claim beside {@code who}; null when none was given
 * @param action   e.g. {@code policy.replace}, {@code ban.add}, {@code ban.remove}, {@code pause}, {@code resume}
 * @param detail   one human line
 * @param before   the affected part before the change, or null
 * @param after    the affected part after the change, or null
 */
public record AuditEntry(long seq, Instant at, String who, @JsonInclude(JsonInclude.Include.NON_NULL) String operator,
                         String action, String detail, JsonNode before, JsonNode after) {

    /** An entry not yet appended (its {@code seq} is given by the log), without an operator's claimed name. */
    public AuditEntry(Instant at, String who, String action, String detail, JsonNode before, JsonNode after) {
        this(0, at, who, null, action, detail, before, after);
    }

    /**
     * A person's name as an entry keeps it beside {@code who} ({@code X-Sluice-Operator}, {@code SUDO_USER}): one
     * printable line of at most 100 characters (it goes into logs and bans); null for none.
     */
    public static String claimedName(String claimed) {
        if (claimed == null) {
            return null;
        }
        String clean = claimed.replaceAll("\\p{Cntrl}", "").trim();
        clean = clean.length() > 100 ? clean.substring(0, 100) : clean;
        return clean.isEmpty() ? null : clean;
    }

    AuditEntry withSeq(long value) {
        return new AuditEntry(value, at, who, operator, action, detail, before, after);
    }
}
