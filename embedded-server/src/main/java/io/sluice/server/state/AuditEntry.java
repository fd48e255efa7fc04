package io.sluice.server.state;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One operator action.
 *
 * @param at     when
 * @param who    the operator
 * @param action e.g. {@code policy.replace}, {@code ban.add}, {@code ban.remove}, {@code pause}, {@code resume}
 * @param detail one human line
 * @param before the affected part before the change, or null
 * @param after  the affected part after the change, or null
 */
public record AuditEntry(Instant at, String who, String action, String detail, JsonNode before, JsonNode after) {
}
