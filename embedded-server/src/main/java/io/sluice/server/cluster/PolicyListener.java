package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;

/** What a node does with the cluster's policy: {@link SharedPolicy#follow} calls it. */
public interface PolicyListener {

    /** The policy this node runs now; its version is the last one applied. */
    Policy current();

    /**
     * Installs a newer version: called at most once per version, in increasing version order, never
     * concurrently, and never for a version at or below {@link #current()}'s. It may block on disk (it runs
     * on the cluster's own thread), never on Redis.
     */
    void apply(PolicyChange change);
}
