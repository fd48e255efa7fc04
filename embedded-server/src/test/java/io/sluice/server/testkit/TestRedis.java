package io.sluice.server.testkit;

import io.sluice.localredis.LocalRedis;
import io.sluice.server.cluster.RedisEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * A real {@code redis-server} for the cluster tests: a {@link LocalRedis} (a free loopback port, nothing saved to
 * disk; it can be killed, hung and resumed, restarted empty) with what the tests ask of it besides: its endpoint, a
 * clean slate between tests, its clients dropped, a figure from {@code INFO}. Close it in
 * {@code @AfterAll}/{@code @AfterEach}; a JVM exit kills it too.
 */
public final class TestRedis implements RedisUnderTest {
    private final LocalRedis redis;

    private TestRedis(LocalRedis redis) {
        this.redis = redis;
    }

    /** Starts one; fails the test with the server's own words when the binary is missing or will not start. */
    public static TestRedis start() {
        return new TestRedis(LocalRedis.start());
    }

    /**
     * One started with more options: {@code startWith("--rename-command", "FUNCTION", "")} is a Redis that loads no
     * function, as before 7.0 or for a user not allowed {@code FUNCTION}.
     */
    public static TestRedis startWith(String... options) {
        return new TestRedis(LocalRedis.startWith(options));
    }

    /**
     * A node of a Redis Cluster, not yet in a cluster: {@link TestRedisCluster} joins them. A master silent for 1 s
     * is failed, and its replica takes over however old its data (validity factor 0): a replica still in its first
     * sync when a test kills the master would otherwise never be promoted.
     */
    public static TestRedis startClusterNode() {
        return new TestRedis(LocalRedis.startClusterNode("--cluster-node-timeout", "1000",
                "--cluster-replica-validity-factor", "0"));
    }

    /** The server as the local-redis module knows it (for joining cluster nodes). */
    LocalRedis server() {
        return redis;
    }

    public int port() {
        return redis.port();
    }

    /** The server's files (its log, a cluster node's config). */
    public Path dir() {
        return redis.dir();
    }

    /** {@code redis://127.0.0.1:PORT}, the form {@code --redis} takes. */
    public String url() {
        return redis.url();
    }

    @Override
    public RedisEndpoint endpoint() {
        return RedisEndpoint.parse(url(), null);
    }

    /** SIGKILL: the server and every key in it are gone; connections see a reset. */
    public void kill() {
        redis.kill();
    }

    /** A fresh, empty server on the same port: no keys, no scripts cached (as after a crash with no persistence). */
    public void restartEmpty() {
        redis.restartEmpty();
    }

    /** SIGSTOP: connections stay open but nothing is answered, like a server swapping or stuck in a slow command. */
    public void hang() {
        redis.hang();
    }

    /** SIGCONT after {@link #hang()}. */
    public void resume() {
        redis.resume();
    }

    /** Drops every client connection except the one asking (CLIENT KILL), as a proxy or a failover would. */
    @Override
    public long dropClients() {
        try {
            return Long.parseLong(command("CLIENT", "KILL", "TYPE", "normal"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** FLUSHALL and SCRIPT FLUSH: a clean slate between tests sharing one server. */
    @Override
    public void reset() {
        try {
            command("FLUSHALL");
            command("SCRIPT", "FLUSH");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A number from {@code INFO section}: the digits right after {@code prefix} ({@code "number_of_libraries:"},
     * {@code "cmdstat_fcall:calls="}), or 0 where INFO has no such line (a command never run).
     */
    public long info(String section, String prefix) throws IOException {
        String number = command("EVAL", "return string.match(redis.call('INFO', ARGV[1]), "
                + "string.gsub(ARGV[2], '%p', '%%%0') .. '(%d+)')", "0", section, prefix);
        return number == null ? 0 : Long.parseLong(number);
    }

    /** Sends one command over a new connection and returns the reply as text (simple and integer replies). */
    @Override
    public String command(String... words) throws IOException {
        return redis.command(words);
    }

    @Override
    public void close() {
        redis.close();
    }
}
