package io.sluice.server.cluster;

import io.sluice.engine.policy.Policy;
import java.time.InstantSource;

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

    /** The clock this node judges bans on, against which Redis's clock is read. */
    default InstantSource clock() {
        return InstantSource.system();
    }

    /**
     * Redis's clock is {@code millis} ahead of {@link #clock()} (behind when negative): judge ban expiry on it, so
     * every node ends a ban at the same moment. Called at each of the follower's catch-ups.
     */
    default void redisClockOffset(long millis) {
    }
}
