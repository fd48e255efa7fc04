package io.sluice.console.fleet;

import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.SecondCounts;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Requests per second over the last few complete seconds of a per-second series (a node's or the cluster's).
 * The newest second is still being counted, so it is left out; a second absent from the series had no request.
 *
 * @param requests all requests per second (admitted, delayed and refused)
 * @param refused  of those, refused per second
 * @param byClass  the same per class, classes with no request left out
 */
public record Rates(double requests, double refused, Map<RequestClass, ClassRate> byClass) {
    /** How many complete seconds a rate is averaged over: steady enough to read, recent enough to act on. */
    static final int SPAN_SECONDS = 5;

    /** One class's rates. */
    public record ClassRate(double requests, double refused) {
    }

    public static final Rates NONE = new Rates(0, 0, Map.of());

    /** The rates of the {@link #SPAN_SECONDS} seconds before the newest one. */
    public static Rates of(List<SecondCounts> seconds) {
        if (seconds.isEmpty()) {
            return NONE;
        }
        long newest = seconds.stream().mapToLong(SecondCounts::epochSecond).max().getAsLong();
        long[] requests = new long[RequestClass.values().length];
        long[] refused = new long[RequestClass.values().length];
        for (SecondCounts second : seconds) {
            if (second.epochSecond() >= newest || second.epochSecond() < newest - SPAN_SECONDS
                    || second.byClass() == null) {
                continue;
            }
            second.byClass().forEach((requestClass, counts) -> {
                long refusals = refusals(counts);
                requests[requestClass.ordinal()] += counts.admitted() + counts.delayed() + refusals;
                refused[requestClass.ordinal()] += refusals;
            });
        }
        Map<RequestClass, ClassRate> byClass = new EnumMap<>(RequestClass.class);
        double all = 0;
        double allRefused = 0;
        for (RequestClass requestClass : RequestClass.values()) {
            int i = requestClass.ordinal();
            if (requests[i] > 0) {
                byClass.put(requestClass, new ClassRate((double) requests[i] / SPAN_SECONDS,
                        (double) refused[i] / SPAN_SECONDS));
            }
            all += requests[i];
            allRefused += refused[i];
        }
        // class order (browsers first), not a hash order
        return new Rates(all / SPAN_SECONDS, allRefused / SPAN_SECONDS, Collections.unmodifiableMap(byClass));
    }

    private static long refusals(ClassCounts counts) {
        return counts.refused() == null ? 0 : counts.refused().values().stream().mapToLong(Long::longValue).sum();
    }
}
