package io.sluice.server;

/**
 * What one client, or many, can take of the listeners. The admin listener has its own threads and its own
 * connection limit, so a flood on the public port never locks the operators out.
 *
 * @param frontMaxConnections connections the public listener holds at once; past it, new ones wait in the
 *                            kernel's backlog until one closes
 * @param adminMaxConnections the same for the admin listener (operators, dashboards, crawler workers)
 * @param adminThreads        the admin listener's own thread pool
 * @param requestHeaderBytes  largest request line and headers either listener reads (431 past it)
 */
public record ConnectionLimits(int frontMaxConnections, int adminMaxConnections, int adminThreads,
                               int requestHeaderBytes) {

    public static final ConnectionLimits DEFAULTS = new ConnectionLimits(10_000, 256, 32, 8 * 1024);

    public ConnectionLimits {
        if (frontMaxConnections < 1 || adminMaxConnections < 1 || adminThreads < 8 || requestHeaderBytes < 1024) {
            throw new IllegalArgumentException("connection limits must be positive, the admin listener needs 8 "
                    + "threads or more and headers of 1 KiB or more must be allowed");
        }
    }

    public ConnectionLimits withFrontMaxConnections(int value) {
        return new ConnectionLimits(value, adminMaxConnections, adminThreads, requestHeaderBytes);
    }
}
