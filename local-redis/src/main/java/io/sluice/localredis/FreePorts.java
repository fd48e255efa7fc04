package io.sluice.localredis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Random;
import java.util.function.IntPredicate;

/**
 * Free loopback ports for the processes the tests, the demo and the benchmarks start: a redis-server, nginx,
 * Prometheus, the packaged server.
 */
public final class FreePorts {
    private FreePorts() {
    }

    /**
     * A free loopback port for a process started after this returns: chosen at random in 20000-32767, below Linux's
     * ephemeral range (32768 and up), where every outgoing connection on the machine takes its local port too. So the
     * port stays free until the process binds it, but for a rare collision with another such choice, which the
     * launchers retry: a port found by binding port 0 was taken in between when two loaded CI runs shared a machine.
     */
    public static int forAProcess() {
        return where(port -> true, 200, "no free port in 20000-32767 after 200 tries");
    }

    /** A free port as {@link #forAProcess()} whose cluster bus port (+10000) is free too, for a Redis Cluster node. */
    public static int withClusterBus() {
        return where(port -> bindable(port + 10_000), 100,
                "no free port with a free cluster bus port (+10000) after 100 tries");
    }

    private static int where(IntPredicate alsoFree, int attempts, String failure) {
        Random random = new Random();
        for (int attempt = 0; attempt < attempts; attempt++) {
            int port = 20_000 + random.nextInt(12_768);
            if (bindable(port) && alsoFree.test(port)) {
                return port;
            }
        }
        throw new IllegalStateException(failure);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.isBound();
        } catch (IOException e) {
            return false;
        }
    }
}
