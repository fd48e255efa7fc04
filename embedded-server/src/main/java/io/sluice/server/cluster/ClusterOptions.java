package io.sluice.server.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What {@code --redis} and {@code --node-name} say.
 *
 * @param redis    the cluster's Redis
 * @param nodeName this node's name in the cluster, or null for the default: host name and front-end port
 * @param settings the cluster machinery's timings; {@link ClusterSettings#DEFAULTS} unless a test (or a benchmark)
 *                 needs others, such as a deadline a loaded test machine does not miss by accident
 */
public record ClusterOptions(RedisEndpoint redis, String nodeName, ClusterSettings settings) {

    public ClusterOptions {
        if (redis == null) {
            throw new IllegalArgumentException("cluster mode needs a Redis URL");
        }
        if (settings == null) {
            throw new IllegalArgumentException("cluster settings are required");
        }
        if (nodeName != null && (nodeName.isBlank() || nodeName.length() > 100
                || !nodeName.chars().allMatch(c -> c > 32 && c < 127))) {
            throw new IllegalArgumentException("a node name is 1-100 printable characters without spaces, not '"
                    + nodeName + "'");
        }
    }

    /** What {@code --redis} and {@code --node-name} say, with the production timings. */
    public ClusterOptions(RedisEndpoint redis, String nodeName) {
        this(redis, nodeName, ClusterSettings.DEFAULTS);
    }

    /** The node name given, or this machine's host name and the front end's port. */
    public String nodeNameOr(int frontPort) {
        if (nodeName != null) {
            return nodeName;
        }
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + ":" + frontPort;
    }
}
