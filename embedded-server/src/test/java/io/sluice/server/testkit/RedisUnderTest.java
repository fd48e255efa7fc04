package io.sluice.server.testkit;

import io.sluice.server.cluster.RedisEndpoint;
import java.io.IOException;

/** What the cluster tests need of their Redis, one server ({@link TestRedis}) or a Redis Cluster. */
public interface RedisUnderTest extends AutoCloseable {

    /** What {@code --redis} would say to reach it. */
    RedisEndpoint endpoint();

    /** Every key and cached script gone: a clean slate between tests sharing it. */
    void reset();

    /** Drops every client connection (CLIENT KILL), as a proxy or a failover would; how many were dropped. */
    long dropClients();

    /** One command, sent to the server that holds its key; the reply as text (simple, integer, bulk replies). */
    String command(String... words) throws IOException;

    @Override
    void close();
}
