package io.sluice.server.change;

import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import io.sluice.engine.ThrottleEngine;
import java.io.IOException;
import java.util.List;
import java.time.InstantSource;
import java.util.Optional;

/**
 * One machine's store: the audit entry is appended (fsynced) first, then {@code policy.json} is replaced
 * atomically. An entry is thus on disk before its change can be live; if the policy file then cannot be
 * written, a second entry says the change was not applied, and the caller leaves the live policy as it
 * was. Recent versions are remembered ({@link PolicyHistory}) for merging edits based on them.
 */
public final class LocalPolicyStore implements PolicyStore {
    private final StateDirectory state;
    private final InstantSource clock;
    private final PolicyHistory history;

    /**
     * @param history the versions this node ran, fed by this store's commits and by whoever else installs a version
     *                (the engine's automatic bans), so that an edit based on any of them can be merged
     */
    public LocalPolicyStore(StateDirectory state, PolicyHistory history, InstantSource clock) {
        this.state = state;
        this.clock = clock;
        this.history = history;
    }

    @Override
    public synchronized AuditEntry commit(Policy current, Policy next, AuditEntry entry) throws IOException {
        AuditEntry recorded = state.audit().append(entry);
        try {
            state.savePolicy(next);
        } catch (IOException e) {
            try {
                state.audit().append(new AuditEntry(0, clock.instant(), entry.who(), entry.operator(),
                        "change.failed", "not applied (policy.json could not be written: " + e.getMessage()
                        + "): entry " + recorded.seq() + ", " + entry.detail(), null, null));
            } catch (IOException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
        history.remember(next);
        return recorded;
    }

    /**
     * The batch's audit entries (one fsync), then {@code policy.json}. If the policy file cannot be written the
     * entries stand without their change: a line says so, and the bans stay in force in memory only.
     */
    @Override
    public synchronized void commitAutomatic(Policy current, Policy next, BanChange change, List<AuditEntry> entries)
            throws IOException {
        state.audit().appendAll(entries);
        try {
            state.savePolicy(next);
        } catch (IOException e) {
            try {
                state.audit().append(new AuditEntry(clock.instant(), ThrottleEngine.AUTOMATIC_BAN_AUTHOR,
                        "change.failed", "not applied (policy.json could not be written: " + e.getMessage() + "): "
                        + entries.size() + " automatic ban entries before this one", null, null));
            } catch (IOException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
        history.rememberAutomatic(next, change);
    }

    @Override
    public Optional<Policy> version(long version) {
        return history.version(version);
    }
}
