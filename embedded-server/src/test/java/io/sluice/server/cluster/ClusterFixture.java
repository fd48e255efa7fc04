package io.sluice.server.cluster;

import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.RedisUnderTest;
import io.sluice.server.testkit.TestRedis;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/** Nodes of one cluster in this JVM, sharing one {@link TestRedis} (or a Redis Cluster); closes them all. */
final class ClusterFixture implements AutoCloseable {
    /** Production timings, but a silent node counts as unreachable sooner, so tests do not wait for it. */
    static final ClusterSettings SETTINGS = ClusterSettings.DEFAULTS.withUnreachableAfter(Duration.ofMillis(600));
    /**
     * For the per-client rules' tests: a request-path deadline of 1 s and Redis unreachable only after 3 s of silence,
     * which a loaded test machine does not reach by accident (250 ms and 600 ms were missed in a fresh-clone CI run
     * beside another build: the node went degraded and decided alone, with other limits, so the rule under test was
     * not the one judged). What a deadline bounds is tested all the same: a decision still never waits on Redis for
     * longer than it.
     */
    static final ClusterSettings PATIENT = new ClusterSettings(Duration.ofSeconds(1), SETTINGS.adminDeadline(),
            SETTINGS.heartbeat(), SETTINGS.recoverAfter(), Duration.ofSeconds(3), SETTINGS.nodeTtl(),
            SETTINGS.followBlock(), SETTINGS.logLength(), SETTINGS.keyPrefix());
    /** A deadline a test's hang never reaches: a call waits in Redis while more is asked. */
    static final ClusterSettings UNHURRIED = new ClusterSettings(Duration.ofSeconds(10), Duration.ofSeconds(10),
            PATIENT.heartbeat(), PATIENT.recoverAfter(), Duration.ofSeconds(20), PATIENT.nodeTtl(),
            PATIENT.followBlock(), PATIENT.logLength(), PATIENT.keyPrefix());

    private final RedisUnderTest redis;
    private final List<ClusterNode> nodes = new ArrayList<>();

    ClusterFixture(RedisUnderTest redis) {
        this.redis = redis;
    }

    ClusterNode node(String name) {
        return node(name, new FixedLoad(0));
    }

    ClusterNode node(String name, LocalLoad load) {
        return node(name, load, SETTINGS);
    }

    ClusterNode node(String name, LocalLoad load, ClusterSettings settings) {
        ClusterNode node = ClusterNode.start(name, redis.endpoint(), "http://127.0.0.1:1/" + name, load, settings,
                InstantSource.system());
        nodes.add(node);
        return node;
    }

    /** A node whose Redis is somewhere nothing listens. */
    ClusterNode nodeWithout(String name, RedisEndpoint nowhere) {
        ClusterNode node = ClusterNode.start(name, nowhere, "http://127.0.0.1:1/" + name, new FixedLoad(0), SETTINGS,
                InstantSource.system());
        nodes.add(node);
        return node;
    }

    void stop(ClusterNode node) {
        nodes.remove(node);
        node.close();
    }

    static void awaitState(ClusterNode node, ClusterState state) {
        Await.await(() -> node.state() == state, node.name() + " to be " + state);
    }

    @Override
    public void close() {
        nodes.forEach(ClusterNode::close);
        nodes.clear();
    }

    /** A node's load that the test sets. */
    static final class FixedLoad implements LocalLoad {
        volatile long inFlight;
        volatile long policyVersion = 1;
        volatile List<SecondCounts> seconds = List.of();

        FixedLoad(long inFlight) {
            this.inFlight = inFlight;
        }

        @Override
        public long inFlight() {
            return inFlight;
        }

        @Override
        public long policyVersion() {
            return policyVersion;
        }

        @Override
        public List<SecondCounts> lastMinute() {
            return seconds;
        }
    }

    /**
     * The hits {@code redis} (one Redis, or the master of their slot) holds for every user agent of {@code ip}'s
     * clients in the minute each stack keeps: its header's last second's (the first two of its eight numbers), and
     * the slots (second, hits) after the header of the other seconds within the last minute.
     */
    static long hitsIn(RedisUnderTest redis, String ip) throws IOException {
        return hitsMatching(redis, ClusterFixture.SETTINGS.keyPrefix() + "{" + ip + "}:m:*");
    }

    /** As {@link #hitsIn}, for the stacks whose keys match {@code pattern}. */
    static long hitsMatching(RedisUnderTest redis, String pattern) throws IOException {
        return Long.parseLong(redis.command("EVAL", MINUTE_OF_HITS + "local n = 0 "
                + "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do n = n + minute(redis.call('GET', k)) end "
                + "return n", "0", pattern));
    }

    /** Lua: {@code minute(stack)}, the hits of a stack's string in the slots of the last minute on Redis's clock. */
    static final String MINUTE_OF_HITS = "local second = tonumber(redis.call('TIME')[1]) "
            + "local function minute(packed) local n = 0 "
            + "local fields = {struct.unpack('<' .. string.rep('I4', 128), packed)} "
            + "if fields[1] > second - 60 then n = fields[2] end "
            + "for i = 1, 60 do local s = fields[7 + 2 * i] "
            + "if s > second - 60 and s ~= fields[1] then n = n + fields[8 + 2 * i] end end "
            + "return n end ";
}
