package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A node's policy held in memory, recording every change it was given, for tests. */
final class MemoryListener implements PolicyListener {
    private volatile Policy current;
    final List<PolicyChange> applied = new CopyOnWriteArrayList<>();
    /** {@link System#nanoTime()} at each apply, in the same order. */
    final List<Long> appliedAtNanos = new CopyOnWriteArrayList<>();

    MemoryListener(Policy initial) {
        this.current = initial;
    }

    @Override
    public Policy current() {
        return current;
    }

    @Override
    public void apply(PolicyChange change) {
        appliedAtNanos.add(System.nanoTime());
        applied.add(change);
        current = change.policy();
    }

    List<Long> versions() {
        return applied.stream().map(PolicyChange::version).toList();
    }
}
