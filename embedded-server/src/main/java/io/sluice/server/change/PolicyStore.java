package io.sluice.server.change;

import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where an accepted policy change becomes durable, with its audit entry, before it goes live. Today's
 * implementation is the state directory's files ({@link LocalPolicyStore}); a cluster's is a shared store
 * (compare-and-set on the cluster's policy version, the entry appended to the change log every node follows:
 * {@code io.sluice.server.cluster.ClusterPolicyStore}). {@link PolicyChanges} calls it under its lock, after
 * validation and before the swap.
 */
public interface PolicyStore {

    /**
     * Records {@code next} as the successor of {@code current}, with its audit entry, durably.
     *
     * @return the entry as recorded (with its {@code seq})
     * @throws StaleVersionException when the store holds a newer version than {@code current} (another
     *                               node's change); nothing was recorded
     * @throws IOException           when it cannot be recorded; the live policy must then stay as it is
     */
    AuditEntry commit(Policy current, Policy next, AuditEntry entry) throws IOException;

    /**
     * Records an automatic change ({@code change}: escalation's bans, expired ones removed) and its audit entries
     * (one per ban), durably, in one write: {@code next} is {@code current} with the change made, as the successor
     * version. A cluster's store records the change itself, not the policy, and puts it in force on every node
     * ({@link #installs()}); it never refuses it for a version that moved on (bans do not conflict).
     *
     * @throws IOException when it cannot be recorded; the live policy must then stay as it is
     */
    default void commitAutomatic(Policy current, Policy next, BanChange change, List<AuditEntry> entries)
            throws IOException {
        throw new IOException("this store does not record automatic bans");
    }

    /** A recent version of the policy, to merge an edit that was based on it; empty once forgotten. */
    Optional<Policy> version(long version);

    /**
     * True when a committed version is put in force by the store itself, with its exact version (a cluster's
     * nodes all take it from the change log); {@link PolicyChanges} then only adopts it if it is not in force
     * yet. False: {@link PolicyChanges} swaps it in.
     */
    default boolean installs() {
        return false;
    }

    /**
     * Waits, briefly, until this node runs at least {@code version}, for an edit based on a version it has not
     * taken yet: in a cluster, one read from another node that had a change a moment before this one. A store
     * with no other source of versions (the local one) returns at once.
     */
    default void catchUp(long version) {
    }
}
