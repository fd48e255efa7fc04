package io.sluice.server.cluster;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.net.IpAddress;
import io.sluice.server.OwnThread;
import io.sluice.server.state.PassKeyFile;
import io.sluice.server.state.PassKeyFollower;
import io.sluice.server.state.StateDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One browser pass key ring for a cluster, in a real redis-server (and, in {@link RedisClusterPassKeysTest}, a Redis
 * Cluster): nodes in this JVM, each with its own state directory, engine passes ({@link BrowserPasses}, as the front
 * end signs and checks them) and file follower, started as a cluster node starts them.
 */
class ClusterPassKeysRedisTest extends OneRedisPerClass {
    static final long WEEK = 7 * 24 * 3600 * 1000L;
    static final String AGENT = "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
    static final IpAddress ADDRESS = IpAddress.parse("192.0.2.7");

    @TempDir
    Path dir;
    private final SecureRandom random = new SecureRandom();
    private final List<PassNode> nodes = new ArrayList<>();

    /** A node's pass keys as ClusterMember starts them: its file's ring in its passes, then the cluster's. */
    private final class PassNode implements AutoCloseable {
        final Path state;
        final StateDirectory directory;
        final BrowserPasses passes = new BrowserPasses(PassKeyRing.of(PassKey.random(random)));
        final PassKeyFollower follower;
        /** The ring of its own file, before the cluster's. */
        final PassKeyRing own;
        final ClusterNode node;
        final ClusterPassKeys keys;

        PassNode(String name) {
            directory = StateDirectory.open(dir.resolve(name), null);
            state = directory.path();
            follower = PassKeyFollower.start(state, passes, random);
            own = passes.keys();
            node = cluster.node(name);
            keys = ClusterPassKeys.start(node, ClusterFixture.SETTINGS, state, passes, directory.audit(), follower,
                    InstantSource.system());
        }

        String pass() {
            return passes.mint("p" + Long.toHexString(random.nextLong() & 0xffff), false, ADDRESS, AGENT,
                    System.currentTimeMillis() + WEEK);
        }

        boolean accepts(String pass) {
            return passes.check(pass, ADDRESS, AGENT, System.currentTimeMillis()) != null;
        }

        PassKeyRing file() {
            return PassKeyFile.load(state);
        }

        @Override
        public void close() {
            keys.close();
            follower.close();
        }
    }

    private PassNode start(String name) {
        PassNode node = new PassNode(name);
        synchronized (nodes) {
            nodes.add(node);
        }
        return node;
    }

    @AfterEach
    void closeKeys() {
        nodes.forEach(PassNode::close);
    }

    /** The ring Redis holds, read through {@code through}'s link, or null (none, or the link not connected yet). */
    private static PassKeyRing inRedis(PassNode through) {
        SharedRing ring;
        try {
            ring = new RedisRingStore(through.node.adminLink(), ClusterFixture.SETTINGS).read();
        } catch (RedisUnavailableException e) {
            return null;
        }
        return ring.exists() ? PassKeyFile.parse(ring.text()) : null;
    }

    private static void awaitSame(PassNode... of) {
        await(() -> {
            PassKeyRing cluster = inRedis(of[0]);
            for (PassNode node : of) {
                if (cluster == null || !cluster.equals(node.passes.keys()) || !cluster.equals(node.file())) {
                    return false;
                }
            }
            return true;
        }, "every node on the cluster's ring, in its engine and its file");
    }

    @Test
    @DiffersOnACluster("the ring's hash in the fleet's slot, on whichever master serves it")
    void aPassEarnedThroughOneNodeIsGoodOnTheOther() {
        PassNode a = start("a");
        PassNode b = start("b");
        awaitSame(a, b);

        String pass = a.pass();
        assertThat(b.accepts(pass)).isTrue();
        assertThat(b.accepts(pass.substring(0, pass.length() - 2) + (pass.endsWith("AA") ? "BB" : "AA"))).isFalse();
    }

    @Test
    @DiffersOnACluster("two nodes' compare-and-set on the fleet slot's master")
    void twoNodesStartingAtOnceAgreeOnOneRing() throws Exception {
        for (int round = 0; round < 5; round++) {
            server.reset();
            String suffix = "-" + round;
            CompletableFuture<PassNode> a = CompletableFuture.supplyAsync(() -> start("a" + suffix), OwnThread.EACH);
            CompletableFuture<PassNode> b = CompletableFuture.supplyAsync(() -> start("b" + suffix), OwnThread.EACH);
            PassNode onA = a.get();
            PassNode onB = b.get();
            assertThat(onA.own).isNotEqualTo(onB.own); // each began with its own key
            awaitSame(onA, onB);
            assertThat(List.of(onA.own, onB.own)).contains(onA.passes.keys());
            assertThat(onB.accepts(onA.pass())).isTrue();
            assertThat(onA.accepts(onB.pass())).isTrue();
            onA.close();
            onB.close();
        }
    }

    @Test
    void aRotationOnOneNodeReachesTheOtherWithinFiveSecondsAndThePreviousKeyStaysGood() {
        PassNode a = start("a");
        PassNode b = start("b");
        awaitSame(a, b);
        String first = b.pass();

        long start = System.nanoTime();
        PassKeyRing rotated = PassKeyFile.rotate(a.state, System.currentTimeMillis(), WEEK, random); // the CLI's step
        await(() -> rotated.equals(b.passes.keys()), "b to take a's rotation");
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("pass key rotation on one node to in force on another: %d ms%n", millis);
        assertThat(millis).isLessThan(Duration.ofSeconds(5).toMillis());
        awaitSame(a, b);
        assertThat(a.accepts(first)).isTrue(); // signed with the previous key
        assertThat(b.accepts(first)).isTrue();
        String second = a.pass();

        PassKeyRing again = PassKeyFile.rotate(b.state, System.currentTimeMillis(), WEEK, random);
        await(() -> again.equals(a.passes.keys()), "a to take b's rotation");
        awaitSame(a, b);
        assertThat(a.accepts(second)).isTrue();
        assertThat(a.accepts(first)).isFalse(); // a key older than the previous one
        assertThat(b.accepts(first)).isFalse();
        assertThat(a.directory.audit().newestFirst(1).get(0).action()).isEqualTo("pass-key.adopt");
    }

    @Test
    void aRingInRedisThatCannotBeParsedIsRefusedLoggedAndChangesNothing() throws Exception {
        PassNode a = start("a");
        awaitSame(a);
        PassKeyRing ours = a.passes.keys();
        String file = Files.readString(a.state.resolve(PassKeyFile.FILE));
        String key = RedisRingStore.key(ClusterFixture.SETTINGS);
        server.command("HSET", key, "ring", "current=bm90IGEga2V5", "node", "mallory");

        await(() -> a.keys.refused() != null, "a to refuse the damaged ring");
        long seen = a.keys.rounds();
        await(() -> a.keys.rounds() > seen + 1, "a to look again");
        assertThat(a.keys.refused()).contains("current has 9 bytes");
        assertThat(a.passes.keys()).isEqualTo(ours);
        assertThat(Files.readString(a.state.resolve(PassKeyFile.FILE))).isEqualTo(file);
        assertThat(server.command("HGET", key, "ring")).isEqualTo("current=bm90IGEga2V5");
        assertThat(a.directory.audit().newestFirst(10)).isEmpty();
    }

    @Test
    void redisDownAtStartTheNodeUsesItsFileAndTakesTheClustersRingWhenRedisAnswers() {
        PassNode a = start("a");
        awaitSame(a);
        PassKeyRing cluster = a.passes.keys();
        redis.hang();
        PassNode c;
        try {
            c = start("c");
            PassKeyRing own = c.passes.keys();
            await(() -> c.keys.saidRedisDown(), "c to say Redis does not answer");
            assertThat(c.keys.answered()).isFalse();
            assertThat(c.passes.keys()).isEqualTo(own).isEqualTo(c.file());
            assertThat(c.accepts(c.pass())).isTrue(); // it goes on signing and checking with its own key
        } finally {
            redis.resume();
        }
        await(() -> cluster.equals(c.passes.keys()), "c to take the cluster's ring once Redis answers");
        awaitSame(a, c);
        assertThat(c.keys.answered()).isTrue();
        assertThat(c.accepts(a.pass())).isTrue();
    }
}
