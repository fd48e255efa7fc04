package io.sluice.server.cluster;

import io.sluice.engine.telemetry.SecondCounts;
import java.util.List;

/** What a node reports about itself to the cluster (the engine, in a server; anything, in a test). */
public interface LocalLoad {

    /** Requests admitted on this node and not yet completed; read every heartbeat, so cheap. */
    long inFlight();

    /** The version of the policy this node runs. */
    long policyVersion();

    /** Per-second counts by class and outcome for the last 60 complete seconds, oldest first; read once a second. */
    List<SecondCounts> lastMinute();

    /**
     * The other reachable nodes' requests in flight, as just read (every heartbeat), so the node's load deferral
     * counts the cluster's; a node that only reports (a test) ignores it.
     */
    default void othersInFlight(long requests) {
    }
}
