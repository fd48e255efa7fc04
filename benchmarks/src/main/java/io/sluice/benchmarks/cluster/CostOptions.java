package io.sluice.benchmarks.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What {@link RedisAdmissionCost} is told (docs/manual/benchmarks.md, "Cluster: Redis CPU per admitted request").
 *
 * @param shards        redis-servers started: 1 (one Redis), or 3 or more (a Redis Cluster of that many masters)
 * @param redisUrl      a Redis (or Redis Cluster) that runs already, in place of starting any, or null
 * @param redisCore     the core every local redis-server is pinned to ({@code taskset}), or -1 for none
 * @param nodes         nodes in this JVM
 * @param clients       client addresses cycled
 * @param inFlight      requests outstanding per node
 * @param warmupSeconds load before the measurement
 * @param seconds       the measurement
 */
record CostOptions(int shards, String redisUrl, int redisCore, int nodes, int clients, int inFlight,
                   int warmupSeconds, int seconds) {
    private static final Set<String> FLAGS = Set.of("--shards", "--redis", "--redis-core", "--nodes", "--clients",
            "--in-flight", "--warmup", "--seconds");

    CostOptions {
        if (shards != 1 && shards < 3) {
            throw new IllegalArgumentException("--shards is 1 (one Redis) or at least 3 (a Redis Cluster), not "
                    + shards);
        }
        if (redisUrl != null && shards != 1) {
            throw new IllegalArgumentException("--shards starts Redis servers; with --redis the benchmark uses "
                    + "that one's");
        }
        if (redisCore < -1 || redisCore >= Runtime.getRuntime().availableProcessors()) {
            throw new IllegalArgumentException("--redis-core must be one of this machine's cores, 0-"
                    + (Runtime.getRuntime().availableProcessors() - 1) + ", not " + redisCore);
        }
        positive("--nodes", nodes);
        positive("--clients", clients);
        positive("--in-flight", inFlight);
        positive("--seconds", seconds);
        if (warmupSeconds < 0) {
            throw new IllegalArgumentException("--warmup must not be negative, not " + warmupSeconds);
        }
    }

    /** {@code --flag value} pairs; every flag optional, defaults as the manual says. */
    static CostOptions parse(String... args) {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!FLAGS.contains(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; the options are " + FLAGS);
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            given.put(args[i], args[i + 1]);
        }
        return new CostOptions(number(given, "--shards", 1), given.get("--redis"), number(given, "--redis-core", -1),
                number(given, "--nodes", 1), number(given, "--clients", 10_000), number(given, "--in-flight", 64),
                number(given, "--warmup", 20), number(given, "--seconds", 30));
    }

    private static int number(Map<String, String> given, String flag, int fallback) {
        String value = given.get(flag);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " must be a whole number, not " + value);
        }
    }

    private static void positive(String flag, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(flag + " must be at least 1, not " + value);
        }
    }
}
