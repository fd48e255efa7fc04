package io.sluice.engine.telemetry;

import io.sluice.engine.Reason;
import java.util.Map;

/**
 * Outcomes of one class in one second.
 *
 * @param admitted admitted at once
 * @param delayed  admitted after a wait (load deferral or progressive delay)
 * @param refused  refusals by reason; reasons with no refusal are absent
 */
public record ClassCounts(long admitted, long delayed, Map<Reason, Long> refused) {
}
