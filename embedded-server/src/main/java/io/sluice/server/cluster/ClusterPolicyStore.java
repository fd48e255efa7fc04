package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import io.sluice.server.change.BanChange;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.change.PolicyStore;
import io.sluice.server.change.StaleVersionException;
import io.sluice.server.state.AuditEntry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The policy store of a node in a cluster: a change is a compare-and-set on the cluster's version in Redis
 * ({@link SharedPolicy}), which appends it, with its audit entry, to the change log every node follows. This
 * node takes its own change as every other node does, through its {@link LocalPolicyMirror} (engine,
 * {@code policy.json}, audit log: once per version), before the call returns, so an operator reads their
 * own write on the node they asked and every node has it within one Redis round trip.
 *
 * <ul>
 *   <li>Another node's change got in first: wait (bounded) until this node has the cluster's version, then
 *       {@link StaleVersionException}, and {@code PolicyChanges} computes the change again from it.</li>
 *   <li>Redis unavailable, slow past the admin deadline, or the node not joined yet: an {@link IOException}
 *       naming the cause (the admin API's 503); nothing changed, this node keeps its policy.</li>
 * </ul>
 */
public final class ClusterPolicyStore implements PolicyStore {
    /** How long a node waits for its follower to bring the version another node made. */
    static final Duration CATCH_UP = Duration.ofSeconds(1);

    private final Supplier<SharedPolicy> shared;
    private final LongSupplier appliedVersion;
    private final PolicyHistory history;

    /**
     * @param shared         the cluster's policy, or null until this node has joined
     * @param appliedVersion the version this node runs (the engine's)
     * @param history        the versions this node ran, fed by its {@link LocalPolicyMirror}
     */
    public ClusterPolicyStore(Supplier<SharedPolicy> shared, LongSupplier appliedVersion, PolicyHistory history) {
        this.shared = shared;
        this.appliedVersion = appliedVersion;
        this.history = history;
    }

    @Override
    public AuditEntry commit(Policy current, Policy next, AuditEntry entry) throws IOException {
        SharedPolicy policy = shared.get();
        if (policy == null) {
            throw new IOException("this node is still joining its cluster; nothing changed");
        }
        SharedPolicy.Outcome outcome = policy.compareAndSet(current.version(), next, entry);
        if (outcome instanceof SharedPolicy.Applied applied) {
            history.remember(applied.policy());
            return entry;
        }
        if (outcome instanceof SharedPolicy.Conflict conflict) {
            awaitVersion(conflict.currentVersion());
            throw new StaleVersionException("the cluster's policy is at version " + conflict.currentVersion()
                    + ", not " + current.version(), conflict.currentVersion());
        }
        throw new IOException("the cluster's Redis did not take the change ("
                + ((SharedPolicy.Unavailable) outcome).reason() + "); nothing changed");
    }

    /**
     * A batch of automatic bans as a record of its own in the change log (never the policy); this node, like every
     * other, takes it from there (its {@link LocalPolicyMirror} writes the policy and the audit entries).
     */
    @Override
    public void commitAutomatic(Policy current, Policy next, BanChange change, List<AuditEntry> entries)
            throws IOException {
        SharedPolicy policy = shared.get();
        if (policy == null) {
            throw new IOException("this node is still joining its cluster; nothing changed");
        }
        SharedPolicy.Outcome outcome = policy.addBans(change);
        if (outcome instanceof SharedPolicy.Unavailable unavailable) {
            throw new IOException("the cluster's Redis did not take the bans (" + unavailable.reason()
                    + "); nothing changed");
        }
    }

    /** The follower is live-reading the log, so the newer version usually arrives within milliseconds. */
    private void awaitVersion(long version) throws IOException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (appliedVersion.getAsLong() < version && System.nanoTime() < deadline) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while catching up with the cluster's policy", e);
            }
        }
    }

    @Override
    public Optional<Policy> version(long version) {
        return history.version(version);
    }

    @Override
    public boolean installs() {
        return true;
    }

    /** At most {@link #CATCH_UP}: a version no node made yet (a made-up If-Match) then stays unknown, a 412. */
    @Override
    public void catchUp(long version) {
        try {
            awaitVersion(version);
        } catch (IOException interrupted) {
            // the interrupt flag is set again; the caller answers with the version this node has
        }
    }
}
