package io.sluice.engine.internal;

import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.SecondCounts;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntToLongFunction;

/**
 * Per-second counts by class and outcome for the last {@code seconds} seconds: a ring of per-second
 * slots, each an array of counters. A writer increments one counter of the slot of its second; the
 * first writer of a new second swaps in a fresh slot (compare-and-set), which is how old seconds are
 * dropped without a sweep. Writers never wait for readers; a reader copies the ring.
 *
 * <p>Totals since start (for Prometheus counters, which must never go down) cost the request path
 * nothing: a second leaving the ring is added to {@link #retired} by the writer that replaces it, once
 * a second, and a total is {@code retired} plus the seconds still in the ring. Replacing a slot and
 * reading the totals share one lock, so a reader never sees a second in both places or in neither.
 */
public final class OutcomeCounters {

    private static final RequestClass[] CLASSES = RequestClass.values();
    private static final Reason[] REASONS = Reason.values();
    /** admitted, delayed, then one per refusal reason. */
    private static final int PER_CLASS = 2 + REASONS.length;

    private final int seconds;
    private final AtomicReferenceArray<Slot> ring;
    /** Counts of the seconds that left the ring. Guarded by {@code this}. */
    private final long[] retired = new long[CLASSES.length * PER_CLASS];

    public OutcomeCounters(int seconds) {
        this.seconds = seconds;
        this.ring = new AtomicReferenceArray<>(seconds);
    }

    public void admitted(RequestClass cls, long nowMillis, boolean afterWait) {
        add(nowMillis, cls.ordinal() * PER_CLASS + (afterWait ? 1 : 0));
    }

    public void refused(RequestClass cls, Reason reason, long nowMillis) {
        add(nowMillis, cls.ordinal() * PER_CLASS + 2 + reason.ordinal());
    }

    private void add(long nowMillis, int counter) {
        long second = Math.floorDiv(nowMillis, 1000);
        int index = (int) Math.floorMod(second, (long) seconds);
        while (true) {
            Slot slot = ring.get(index);
            if (slot != null && slot.second == second) {
                slot.counts.incrementAndGet(counter);
                return;
            }
            if (slot != null && slot.second > second) {
                return; // the clock went back more than the whole ring: that second is gone
            }
            replace(index, slot, second);
        }
    }

    /** Starts {@code second} in slot {@code index}, unless another writer already replaced {@code old}. */
    private synchronized void replace(int index, Slot old, long second) {
        if (ring.get(index) != old) {
            return;
        }
        if (old != null) {
            for (int i = 0; i < retired.length; i++) {
                retired[i] += old.counts.get(i);
            }
        }
        ring.set(index, new Slot(second));
    }

    /** Counts by class since the counters were created; classes with nothing counted are absent. */
    public synchronized Map<RequestClass, ClassCounts> totals() {
        long[] sums = retired.clone();
        for (int index = 0; index < seconds; index++) {
            Slot slot = ring.get(index);
            if (slot != null) {
                for (int i = 0; i < sums.length; i++) {
                    sums[i] += slot.counts.get(i);
                }
            }
        }
        Map<RequestClass, ClassCounts> byClass = new EnumMap<>(RequestClass.class);
        for (RequestClass cls : CLASSES) {
            ClassCounts counts = classCounts(i -> sums[i], cls);
            if (counts != null) {
                byClass.put(cls, counts);
            }
        }
        return Map.copyOf(byClass);
    }

    /** One class's counts read through {@code counter}, or null when all are zero. */
    private static ClassCounts classCounts(IntToLongFunction counter, RequestClass cls) {
        int base = cls.ordinal() * PER_CLASS;
        long admitted = counter.applyAsLong(base);
        long delayed = counter.applyAsLong(base + 1);
        Map<Reason, Long> refused = new EnumMap<>(Reason.class);
        for (Reason reason : REASONS) {
            long n = counter.applyAsLong(base + 2 + reason.ordinal());
            if (n > 0) {
                refused.put(reason, n);
            }
        }
        if (admitted == 0 && delayed == 0 && refused.isEmpty()) {
            return null;
        }
        return new ClassCounts(admitted, delayed, Map.copyOf(refused));
    }

    /** The last {@code seconds} seconds up to {@code nowMillis}, oldest first, one entry per second. */
    public List<SecondCounts> lastSeconds(long nowMillis) {
        long newest = Math.floorDiv(nowMillis, 1000);
        List<SecondCounts> result = new ArrayList<>(seconds);
        for (long s = newest - seconds + 1; s <= newest; s++) {
            Slot slot = ring.get((int) Math.floorMod(s, (long) seconds));
            Map<RequestClass, ClassCounts> byClass = new EnumMap<>(RequestClass.class);
            if (slot != null && slot.second == s) {
                for (RequestClass cls : CLASSES) {
                    ClassCounts counts = slot.counts(cls);
                    if (counts != null) {
                        byClass.put(cls, counts);
                    }
                }
            }
            result.add(new SecondCounts(s, Map.copyOf(byClass)));
        }
        return List.copyOf(result);
    }

    private static final class Slot {
        final long second;
        final AtomicLongArray counts = new AtomicLongArray(CLASSES.length * PER_CLASS);

        Slot(long second) {
            this.second = second;
        }

        ClassCounts counts(RequestClass cls) {
            return classCounts(counts::get, cls);
        }
    }
}
