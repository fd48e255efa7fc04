package io.sluice.engine.governor;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * What the governor saves per domain ({@link DomainSettings}): the operator's minimum delays and the given-up
 * marks, which outlive the learned state and a restart. Bounded: past {@code maxGivenUp} marks the oldest is
 * forgotten; past {@code maxMinDelays} delays an operator must remove one before setting another. Every change
 * is told to the listeners, which save it. Thread-safe.
 */
final class OperatorSettings {
    private final Map<String, DomainSettings> settings = new ConcurrentHashMap<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final int maxGivenUp;
    private final int maxMinDelays;

    OperatorSettings(Map<String, DomainSettings> saved, int maxGivenUp, int maxMinDelays) {
        this.maxGivenUp = maxGivenUp;
        this.maxMinDelays = maxMinDelays;
        saved.forEach((domain, value) -> {
            if (!value.isNone()) {
                settings.put(DomainNames.normalise(domain), value);
            }
        });
    }

    /** The domain's settings, {@link DomainSettings#NONE} when it has none. */
    DomainSettings of(String domain) {
        return settings.getOrDefault(domain, DomainSettings.NONE);
    }

    /**
     * Sets (or with 0 removes) the operator's minimum delay.
     *
     * @throws IllegalArgumentException when it would be one minimum delay too many (nothing changes)
     */
    synchronized void setMinDelay(String domain, long millis) {
        boolean adds = millis > 0 && of(domain).minDelayMillis() == 0;
        if (adds && count(DomainSettings::hasMinDelay) >= maxMinDelays) {
            throw new IllegalArgumentException("at most " + maxMinDelays + " domains can have a "
                    + "minimum delay; remove one (set it to 0) first");
        }
        update(domain, current -> current.withMinDelay(millis));
    }

    /** This node gave the domain up; past the bound, the oldest mark is forgotten. */
    synchronized void giveUp(String domain, Instant at, String reason) {
        update(domain, value -> value.withGivenUp(at, reason));
        if (count(DomainSettings::givenUp) > maxGivenUp) {
            settings.entrySet().stream().filter(entry -> entry.getValue().givenUp())
                    .min(Comparator.comparing((Map.Entry<String, DomainSettings> entry) ->
                            entry.getValue().givenUpAt()))
                    .ifPresent(oldest -> update(oldest.getKey(), value -> value.withGivenUp(null, null)));
        }
    }

    /** Another node of the cluster gave the domain up, after {@code errors} errors in a row. */
    synchronized void givenUpElsewhere(String domain, Instant at, int errors) {
        update(domain, value -> value.withGivenUp(at, "given up by another node of the cluster (" + errors
                + " errors in a row); given up until an operator revives it"));
    }

    synchronized void revive(String domain) {
        update(domain, value -> value.withGivenUp(null, null));
    }

    /** The saved settings, sorted by domain. */
    Map<String, DomainSettings> sorted() {
        return new TreeMap<>(settings);
    }

    void onChanged(Runnable listener) {
        listeners.add(listener);
    }

    private void update(String domain, UnaryOperator<DomainSettings> change) {
        settings.compute(domain, (key, value) -> {
            DomainSettings next = change.apply(value == null ? DomainSettings.NONE : value);
            return next.isNone() ? null : next;
        });
        listeners.forEach(Runnable::run);
    }

    private long count(Predicate<DomainSettings> which) {
        return settings.values().stream().filter(which).count();
    }
}
