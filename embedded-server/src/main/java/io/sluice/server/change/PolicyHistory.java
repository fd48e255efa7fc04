package io.sluice.server.change;

import io.sluice.engine.policy.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The last {@value #SIZE} versions of the policy this node ran, so that an edit based on one of them can be
 * merged with what changed since ({@link PolicyChanges#replace}). Kept in memory: after a restart only edits
 * from the live version on are merged; older ones are a conflict (reload and apply again).
 */
public final class PolicyHistory {
    static final int SIZE = 64;
    private final Map<Long, Policy> versions = new LinkedHashMap<>(SIZE * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Policy> eldest) {
            return size() > SIZE;
        }
    };

    public PolicyHistory(Policy live) {
        remember(live);
    }

    public synchronized void remember(Policy policy) {
        versions.put(policy.version(), policy);
    }

    public synchronized Optional<Policy> version(long version) {
        return Optional.ofNullable(versions.get(version));
    }
}
