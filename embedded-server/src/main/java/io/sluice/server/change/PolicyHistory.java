package io.sluice.server.change;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The versions of the policy this node ran, so that an edit based on one of them can be merged with what changed
 * since ({@link PolicyChanges#replace}). The last {@value #SIZE} versions an operator made (and the one the node
 * started with) are kept whole; the automatic changes (escalation's bans, expiries) are kept as what they changed
 * ({@link BanChange}), up to {@value #MAX_AUTOMATIC_BANS} bans in them, and a version one of them made is rebuilt
 * from the whole version before it. So however many automatic versions a storm of bans makes, a limits form opened
 * before it still merges after it, unless more than {@value #SIZE} operators' changes came since. Kept in memory:
 * after a restart only edits from the live version on are merged; older ones are a conflict (reload and apply
 * again).
 */
public final class PolicyHistory {
    static final int SIZE = 64;
    /** The most bans the remembered automatic changes hold together (a storm's worth, twice over). */
    static final int MAX_AUTOMATIC_BANS = 20_000;
    /** Versions made whole (an operator's change, a policy taken from a cluster), the last {@value #SIZE}. */
    private final Map<Long, Policy> whole = new LinkedHashMap<>(SIZE * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Policy> eldest) {
            return size() > SIZE;
        }
    };
    /** Automatic changes by the version they made, oldest first in {@link #order}. */
    private final Map<Long, BanChange> automatic = new HashMap<>();
    private final Deque<Long> order = new ArrayDeque<>();
    private int automaticBans;
    private Policy latest;

    public PolicyHistory(Policy live) {
        remember(live);
    }

    /** A version made whole: an operator's change, or a policy this node took as it is. */
    public synchronized void remember(Policy policy) {
        whole.put(policy.version(), policy);
        latest = policy;
    }

    /** {@code policy} was made from its predecessor by {@code change} alone. */
    public synchronized void rememberAutomatic(Policy policy, BanChange change) {
        latest = policy;
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
        if (latest.version() == version) {
            return Optional.of(latest);
        }
        Policy known = whole.get(version);
        if (known != null) {
            return Optional.of(known);
        }
        // the nearest whole version below it, from which only automatic changes lead up to it
        Policy from = null;
        for (Policy candidate : whole.values()) {
            if (candidate.version() < version && (from == null || candidate.version() > from.version())) {
                from = candidate;
            }
        }
        if (from == null) {
            return Optional.empty();
        }
        // each change made as BanChange.applyTo makes it, on one list: a storm's thousands of versions cost one pass
        Map<String, Ban> bans = new LinkedHashMap<>();
        from.bans().forEach(ban -> bans.put(ban.id(), ban));
        for (long v = from.version() + 1; v <= version; v++) {
            BanChange change = automatic.get(v);
            if (change == null) {
                return Optional.empty(); // forgotten (more bans since than are kept)
            }
            change.removed().forEach(ban -> bans.remove(ban.id()));
            change.added().forEach(ban -> bans.putIfAbsent(ban.id(), ban));
        }
        return Optional.of(from.withBans(new ArrayList<>(bans.values())).withVersion(version));
    }
}
