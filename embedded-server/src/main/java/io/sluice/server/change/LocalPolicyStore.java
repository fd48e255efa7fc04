package io.sluice.server.change;

import io.sluice.engine.policy.Policy;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
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

    public LocalPolicyStore(StateDirectory state, Policy live, InstantSource clock) {
        this.state = state;
        this.clock = clock;
        this.history = new PolicyHistory(live);
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

    @Override
    public Optional<Policy> version(long version) {
        return history.version(version);
    }
}
