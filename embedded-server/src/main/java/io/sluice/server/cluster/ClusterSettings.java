package io.sluice.server.cluster;

import java.time.Duration;

/**
 * The cluster machinery's timings. {@link #DEFAULTS} are the production numbers; tests shorten the
 * slow ones (how long a silent node stays "reachable") so they do not wait for them.
 *
 * @param deadline         the longest any Redis command may take before the node gives up on it and
 *                         counts Redis as slow: the budget a request would wait, in the tens of milliseconds
 * @param adminDeadline    the deadline of an operator's calls (a policy change, the fleet view): no request
 *                         waits on them, and an operator should not see a 503 because Redis took 60 ms
 * @param heartbeat        how often a node probes Redis, publishes its own state and reads the others'
 * @param recoverAfter     consecutive answered probes before a degraded node says healthy again, so a
 *                         flapping Redis does not flood the log
 * @param unreachableAfter a node not heard from for this long is shown unreachable and its in-flight
 *                         count leaves the cluster's load
 * @param nodeTtl          how long a silent node's last report stays in Redis before it is forgotten
 * @param followBlock      how long the policy follower's XREAD waits for a new entry before it checks
 *                         the document again (on its own connection: it never delays other commands)
 * @param logLength        about how many policy changes the shared log keeps ({@code XADD MAXLEN ~});
 *                         a node away for longer catches up from the document without the older audit lines
 * @param keyPrefix        prefix of every key Sluice writes, so one Redis database can hold other data too
 */
public record ClusterSettings(Duration deadline, Duration adminDeadline, Duration heartbeat, int recoverAfter,
                              Duration unreachableAfter, Duration nodeTtl, Duration followBlock, int logLength,
                              String keyPrefix) {

    public static final ClusterSettings DEFAULTS = new ClusterSettings(Duration.ofMillis(50), Duration.ofSeconds(1),
            Duration.ofMillis(100), 3, Duration.ofSeconds(2), Duration.ofMinutes(10), Duration.ofSeconds(1), 1000,
            "sluice:");

    public ClusterSettings {
        boolean ordered = deadline.compareTo(Duration.ZERO) > 0 && adminDeadline.compareTo(deadline) >= 0
                && heartbeat.compareTo(Duration.ZERO) > 0 && unreachableAfter.compareTo(heartbeat) > 0
                && nodeTtl.compareTo(unreachableAfter) > 0 && followBlock.compareTo(Duration.ZERO) > 0;
        if (!ordered || recoverAfter < 1 || logLength < 1 || keyPrefix == null) {
            throw new IllegalArgumentException("inconsistent cluster settings: " + this);
        }
    }

    public ClusterSettings withUnreachableAfter(Duration value) {
        return new ClusterSettings(deadline, adminDeadline, heartbeat, recoverAfter, value, nodeTtl, followBlock,
                logLength, keyPrefix);
    }

    public ClusterSettings withKeyPrefix(String value) {
        return new ClusterSettings(deadline, adminDeadline, heartbeat, recoverAfter, unreachableAfter, nodeTtl,
                followBlock, logLength, value);
    }

    String key(String name) {
        return keyPrefix + name;
    }

    /**
     * A key of the fleet's own state (the policy document, its log and bans, the node registry). They share one hash
     * tag, {@code {fleet}}, so each script that touches several of them stays on one slot of a Redis Cluster, and
     * {@code nodes-read.lua} may read the node hashes it finds in the registry (docs/manual/cluster.md, "Redis
     * Cluster"). On one Redis the tag is only part of the name.
     */
    String fleetKey(String name) {
        return keyPrefix + "{fleet}:" + name;
    }
}
