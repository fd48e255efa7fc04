package io.sluice.engine.telemetry;

import io.sluice.engine.RequestClass;
import java.util.Map;

/**
 * What happened in one second, by class.
 *
 * @param epochSecond the second (Unix time)
 * @param byClass     counts per class; a class with no request in that second may be absent
 */
public record SecondCounts(long epochSecond, Map<RequestClass, ClassCounts> byClass) {
}
