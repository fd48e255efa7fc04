package io.sluice.benchmarks.cluster;

import io.sluice.server.cluster.RedisEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A redis-server whose work the benchmark measures: its command counts (any server it can reach) and its CPU time
 * (only one running on this machine: its pid from {@code INFO server}, checked in /proc to be a redis-server or
 * valkey-server, not some other process of that number in another container).
 *
 * @param pid the process's id here, or -1 when it runs elsewhere (its CPU is then not measured)
 */
record MeasuredRedis(RedisAddress address, long pid) {

    /** The server at {@code address}, its pid found if it is local. */
    static MeasuredRedis of(RedisAddress address) {
        long pid = -1;
        if (local(address.host())) {
            String id = info(address, "server").lines().filter(line -> line.startsWith("process_id:")).findFirst()
                    .map(line -> line.substring("process_id:".length()).strip()).orElse(null);
            if (id != null && (ProcessCpu.runs(Long.parseLong(id), "redis")
                    || ProcessCpu.runs(Long.parseLong(id), "valkey"))) {
                pid = Long.parseLong(id);
            }
        }
        return new MeasuredRedis(address, pid);
    }

    /**
     * The servers behind {@code endpoint}: the one Redis, or every master of a Redis Cluster as its first seed's
     * {@code CLUSTER NODES} lists them (replicas do not serve the nodes' commands).
     */
    static List<MeasuredRedis> behind(RedisEndpoint endpoint) {
        RedisAddress first = new RedisAddress(endpoint.host(), endpoint.port(), endpoint.tls(), endpoint.username(),
                endpoint.password());
        if (!endpoint.cluster()) {
            return List.of(of(first));
        }
        String nodes;
        try {
            nodes = first.command("CLUSTER", "NODES");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read CLUSTER NODES from " + first, e);
        }
        List<RedisAddress> masters = new ArrayList<>();
        for (String line : nodes.split("\r?\n")) {
            String[] fields = line.split(" ");
            if (fields.length < 3 || !List.of(fields[2].split(",")).contains("master") || fields[2].contains("fail")) {
                continue;
            }
            // HOST:PORT@BUSPORT[,HOSTNAME]; a node that never learnt its own address writes :PORT
            String hostPort = fields[1].split("@")[0];
            int colon = hostPort.lastIndexOf(':');
            String host = colon == 0 ? endpoint.host() : hostPort.substring(0, colon);
            masters.add(new RedisAddress(host, Integer.parseInt(hostPort.substring(colon + 1)), endpoint.tls(),
                    endpoint.username(), endpoint.password()));
        }
        masters.sort(Comparator.comparing(RedisAddress::host).thenComparingInt(RedisAddress::port));
        return masters.stream().map(MeasuredRedis::of).toList();
    }

    /** Whether its CPU time can be read here. */
    boolean local() {
        return pid >= 0;
    }

    /** Its CPU time in nanoseconds, or -1 when it is not local. */
    long cpuNanos() {
        return pid < 0 ? -1 : ProcessCpu.nanos(pid);
    }

    /** {@code CONFIG RESETSTAT}: its command counts start again from zero. */
    void resetStats() {
        try {
            address.command("CONFIG", "RESETSTAT");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset the statistics of " + address, e);
        }
    }

    /** Its command counts since the last reset. */
    CommandStats commandStats() {
        return CommandStats.parse(info(address, "commandstats"));
    }

    private static String info(RedisAddress address, String section) {
        try {
            return address.command("INFO", section);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read INFO " + section + " from " + address, e);
        }
    }

    private static boolean local(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isLoopbackAddress() || address.isAnyLocalAddress()
                    || NetworkInterface.getByInetAddress(address) != null;
        } catch (UnknownHostException | SocketException e) {
            return false;
        }
    }
}
