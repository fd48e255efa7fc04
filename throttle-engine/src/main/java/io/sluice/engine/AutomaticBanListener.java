package io.sluice.engine;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import java.util.List;

/**
 * Told about the bans the engine makes and removes by itself (escalation), so the server can persist the policy
 * and audit them like an operator's. Called on the request thread that made the change, after it is in force:
 * an implementation hands the work to a thread of its own and returns at once.
 */
@FunctionalInterface
public interface AutomaticBanListener {

    /**
     * @param installed the policy now live, with the change
     * @param added     bans made by escalation
     * @param removed   expired automatic bans taken out of the policy
     */
    void changed(Policy installed, List<Ban> added, List<Ban> removed);
}
