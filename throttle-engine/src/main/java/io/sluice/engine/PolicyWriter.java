package io.sluice.engine;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyConflictException;
import io.sluice.engine.policy.PolicyValidationException;
import java.util.function.UnaryOperator;

/**
 * The one writer of an engine's policy, handed out once by {@link ThrottleEngine#claimPolicyWriter()}. Every change is
 * validated whole and installed atomically (the next decision sees it); nothing here records who changed what or
 * writes it down: that is the holder's job. In the server the holder is {@code PolicyChanges} (validate, persist,
 * audit, then install) and, on a node of a cluster, the mirror that takes the versions other nodes made and audited.
 * An embedder of the bare engine that holds it writes past any audit by design: the audit, if it wants one, is its
 * own.
 */
public final class PolicyWriter {
    private final ThrottleEngine engine;

    PolicyWriter(ThrottleEngine engine) {
        this.engine = engine;
    }

    /** The engine this writes to. */
    public ThrottleEngine engine() {
        return engine;
    }

    /** The live policy. */
    public Policy policy() {
        return engine.policy();
    }

    /**
     * Replaces the live policy with {@code proposed} (its own version is ignored), if the live version is still
     * {@code expectedVersion}.
     *
     * @return the installed policy, with version = previous version + 1
     * @throws PolicyValidationException naming every bad field; nothing changed
     * @throws PolicyConflictException   when the live version is not {@code expectedVersion}; nothing changed
     */
    public Policy replace(long expectedVersion, Policy proposed) {
        return engine.replacePolicy(expectedVersion, proposed);
    }

    /**
     * Applies {@code change} to the live policy and installs the result with the next version, retrying if another
     * change got in first ({@code change} may run more than once: keep it free of side effects).
     *
     * @throws PolicyValidationException when the result is not valid; nothing changed
     */
    public Policy update(UnaryOperator<Policy> change) {
        return engine.updatePolicy(change);
    }

    /**
     * Installs a version of a cluster's policy exactly as given (its version included), if it is newer than the live
     * one: how a node takes a change made (and audited) through another node.
     *
     * @return true if installed, false if the live version is already as new
     * @throws PolicyValidationException when it is not valid; nothing changed
     */
    public boolean adopt(Policy replicated) {
        return engine.adoptPolicy(replicated);
    }
}
