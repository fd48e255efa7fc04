package io.sluice.server.change;

import io.sluice.engine.policy.Policy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The versions of the policy this node ran, so that an edit based on one of them can be merged with what changed
 * since ({@link PolicyChanges#replace}). The last {@value #SIZE} versions are kept whole; the automatic changes
 * (escalation's bans, expiries) are also kept as what they changed ({@link BanChange}), for many more versions
 * (up to {@value #MAX_AUTOMATIC_BANS} bans in them), so a version further back is rebuilt by undoing them from the
 * nearest whole one: a limits form opened before a storm of automatic bans still merges after it. Kept in memory:
 * after a restart only edits from the live version on are merged; older ones are a conflict (reload and apply
 * again).
 */
public final class PolicyHistory {
    static final int SIZE = 64;
    /** The most bans the remembered automatic changes hold together (a storm's worth, twice over). */
    static final int MAX_AUTOMATIC_BANS = 20_000;
    private final Map<Long, Policy> versions = new LinkedHashMap<>(SIZE * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Policy> eldest) {
            return size() > SIZE;
        }
    };
    /** Automatic changes by the version they made, oldest first in {@link #order}. */
    private final Map<Long, BanChange> automatic = new HashMap<>();
    private final Deque<Long> order = new ArrayDeque<>();
    private int automaticBans;

    public PolicyHistory(Policy live) {
        remember(live);
    }

    public synchronized void remember(Policy policy) {
        versions.put(policy.version(), policy);
    }

    /** {@code policy} was made from its predecessor by {@code change} alone. */
    public synchronized void rememberAutomatic(Policy policy, BanChange change) {
        remember(policy);
        if (automatic.put(policy.version(), change) == null) {
            order.addLast(policy.version());
        }
        automaticBans += change.added().size() + change.removed().size();
        while (automaticBans > MAX_AUTOMATIC_BANS && !order.isEmpty()) {
            BanChange dropped = automatic.remove(order.removeFirst());
            automaticBans -= dropped.added().size() + dropped.removed().size();
        }
    }

    /** Version {@code version}, whole or rebuilt; empty once forgotten. */
    public synchronized Optional<Policy> version(long version) {
        Policy known = versions.get(version);
        if (known != null) {
            return Optional.of(known);
        }
        // the nearest whole version above it, from which only automatic changes lead down to it
        Policy from = null;
        for (Policy candidate : versions.values()) {
            if (candidate.version() > version && (from == null || candidate.version() < from.version())) {
                from = candidate;
            }
        }
        if (from == null) {
            return Optional.empty();
        }
        Policy policy = from;
        for (long v = from.version(); v > version; v--) {
            BanChange change = automatic.get(v);
            if (change == null) {
                return Optional.empty(); // an operator's change lies between: its base is gone
            }
            policy = change.undo(policy).withVersion(v - 1);
        }
        return Optional.of(policy);
    }
}
