package io.sluice.console.chart;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * An operator's action drawn on the rate chart's time axis, so the effect of a ban, a pause or a policy change
 * is seen beside it.
 *
 * @param epochSecond when (the chart's x axis is in epoch seconds)
 * @param kind        what was done
 * @param who         the token's name (with the operator's name when one was given)
 * @param detail      the audit's detail, for the mark's tooltip
 */
public record AuditMark(long seq, long epochSecond, Kind kind, String who, String detail) {

    /** The actions worth a mark, and the word drawn beside it. */
    public enum Kind {
        BAN("ban"), UNBAN("unban"), PAUSE("pause"), RESUME("resume"), POLICY("policy"), CHECK("check");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** The mark of an audit entry, if its action is one the chart shows. */
    public static Optional<AuditMark> of(JsonNode entry) {
        Kind kind = switch (entry.path("action").asText()) {
            case "ban.add" -> Kind.BAN;
            case "ban.remove", "ban.expire" -> Kind.UNBAN;
            case "pause" -> Kind.PAUSE;
            case "resume" -> Kind.RESUME;
            case "policy.replace", "policy.promote" -> Kind.POLICY;
            case "browser-check.mode", "browser-check.network" -> Kind.CHECK;
            default -> null;
        };
        if (kind == null) {
            return Optional.empty();
        }
        try {
            long at = Instant.parse(entry.path("at").asText()).getEpochSecond();
            String who = entry.path("who").asText() + (entry.hasNonNull("operator")
                    ? " (" + entry.path("operator").asText() + ")" : "");
            return Optional.of(new AuditMark(entry.path("seq").asLong(), at, kind, who, entry.path("detail").asText()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** The tooltip: who did what. */
    public String describe() {
        return kind.label() + " by " + who + ": " + detail;
    }
}
