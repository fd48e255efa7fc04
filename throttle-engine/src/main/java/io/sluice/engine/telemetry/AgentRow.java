package io.sluice.engine.telemetry;

import io.sluice.engine.policy.Category;
import io.sluice.engine.policy.Agents;

/**
 * One named agent (a crawler-list entry) seen since the engine started: its category, the action the live policy
 * gives it, and how it keeps the upstream's robots.txt.
 *
 * @param name       the crawler-list entry's readable name ("Googlebot"), also its robots.txt product token
 * @param category   its category
 * @param action     what the live policy does to it when verified
 * @param requests   its requests that passed pause and bans
 * @param verified   ... of which verified (its address is its operator's, or verification is off)
 * @param refused    ... refused by its category's rule (or challenged)
 * @param disallowed ... to a path its robots.txt group disallows (the trap path included)
 */
public record AgentRow(String name, Category category, Agents.Action action, long requests, long verified,
                       long refused, long disallowed) {

    /** Whether it keeps robots.txt: no disallowed fetch. */
    public boolean compliant() {
        return disallowed == 0;
    }
}
