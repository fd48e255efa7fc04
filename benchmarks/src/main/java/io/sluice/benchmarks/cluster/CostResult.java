package io.sluice.benchmarks.cluster;

import java.util.List;

/**
 * What one run of {@link RedisAdmissionCost} measured, over the measured seconds only, and the figures made from it.
 *
 * @param redis       the Redis measured, as {@code --redis} would name it (no password)
 * @param counts      the nodes' requests, all nodes together
 * @param nanos       the measurement's length
 * @param jvmCpuNanos this JVM's CPU time: the nodes and the load driver together
 * @param shards      each redis-server's figures
 * @param degraded    times a node went DEGRADED (its requests then decided without Redis)
 * @param lastRefusal one refusal's reason, or null if none
 */
record CostResult(CostOptions options, String redis, AdmissionLoad.Counts counts, long nanos, long jvmCpuNanos,
                  List<Shard> shards, int degraded, String lastRefusal) {

    /**
     * One redis-server's part.
     *
     * @param cpuNanos its CPU time, or -1 when it runs on another machine
     */
    record Shard(String address, long cpuNanos, CommandStats stats) {
        boolean measured() {
            return cpuNanos >= 0;
        }
    }

    CostResult {
        shards = List.copyOf(shards);
    }

    /** {@code nanos} of CPU per admitted request, in microseconds (NaN when nothing was admitted or measured). */
    double perAdmitted(long cpuNanos) {
        return cpuNanos < 0 || counts.admitted() == 0 ? Double.NaN : cpuNanos / 1e3 / counts.admitted();
    }

    /** A count per admitted request. */
    double countPerAdmitted(long count) {
        return counts.admitted() == 0 ? Double.NaN : (double) count / counts.admitted();
    }

    double admittedPerSecond() {
        return counts.admitted() * 1e9 / nanos;
    }

    /** Every redis-server's CPU together, or -1 if any one was not measured. */
    long redisCpuNanos() {
        return shards.stream().allMatch(Shard::measured) ? shards.stream().mapToLong(Shard::cpuNanos).sum() : -1;
    }

    /** {@code shard}'s part of every redis-server's CPU (NaN when not all were measured, or none was used). */
    double cpuShare(Shard shard) {
        long all = redisCpuNanos();
        return all <= 0 ? Double.NaN : (double) shard.cpuNanos() / all;
    }

    /** {@code shard}'s part of every command run. */
    double commandShare(Shard shard) {
        long all = shards.stream().mapToLong(s -> s.stats().run()).sum();
        return all == 0 ? Double.NaN : (double) shard.stats().run() / all;
    }
}
