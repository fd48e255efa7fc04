package io.sluice.server.testkit;

import io.sluice.engine.PolicyWriter;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.UnaryOperator;

/**
 * Changes the policy of a bare engine, one a test built without a server around it (a front end tested in memory, a
 * specification's nodes), through the engine's one {@link PolicyWriter}, claimed here the first time: validated and
 * installed, but with no audit entry and no {@code policy.json}, which an operator's change through the server always
 * has. A test that runs a server changes its policy as an operator does: {@code server.policyChanges()} or the admin
 * API.
 */
public final class UnauditedPolicy {
    private static final Map<ThrottleEngine, PolicyWriter> WRITERS = Collections.synchronizedMap(new WeakHashMap<>());

    private UnauditedPolicy() {
    }

    /** Applies {@code change} to {@code engine}'s live policy, skipping the audit and the state directory. */
    public static Policy change(ThrottleEngine engine, UnaryOperator<Policy> change) {
        return WRITERS.computeIfAbsent(engine, ThrottleEngine::claimPolicyWriter).update(change);
    }
}
