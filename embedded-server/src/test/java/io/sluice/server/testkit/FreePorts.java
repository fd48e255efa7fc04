package io.sluice.server.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free loopback port for a process a test launches (redis-server, nginx, Prometheus, the packaged server), which
 * binds it some time after the test found it free.
 *
 * <p>A port found by binding port 0 comes from the kernel's ephemeral range, where every outgoing connection on the
 * machine takes its local port too: two loaded CI runs on one machine took such a port between the test's check and
 * the launch (ServerPackageLaunchTest, JDK 25). Below that range (32768 on Linux) only listeners chosen on purpose
 * take ports, so a port from 20000-32767 that binds now stays free until the launch in all but a rare collision with
 * another test's choice, which the launchers still retry.
 */
public final class FreePorts {
    private static final int FIRST = 20_000;
    private static final int PAST_LAST = 32_768;

    private FreePorts() {
    }

    /** A loopback port that binds now, outside the ephemeral range. */
    public static int forAProcess() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST, PAST_LAST);
            if (bindable(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port in " + FIRST + "-" + (PAST_LAST - 1) + " after 200 tries");
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return socket.isBound();
        } catch (IOException e) {
            return false;
        }
    }
}
