package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.net.IpAddress;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.PassKeyFile;
import io.sluice.server.state.StateDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adoption rules of a cluster's pass key ring, run by {@link ClusterPassKeys} against a store in memory (the same
 * class against a real Redis and a Redis Cluster: {@link ClusterPassKeysRedisTest}).
 */
class ClusterPassKeysTest {
    static final long NOW = 1_790_000_000_000L;
    static final long WEEK = 7 * 24 * 3600 * 1000L;
    static final String AGENT = "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
    static final IpAddress ADDRESS = IpAddress.parse("192.0.2.7");

    @TempDir
    Path dir;
    private final SecureRandom random = new SecureRandom();
    private final FakeRingStore store = new FakeRingStore();
    private final InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(NOW));

    /** A node as NodeEngine starts it: its state directory's ring (made now) in its engine's passes. */
    private final class Node {
        final StateDirectory state;
        final BrowserPasses passes;
        final ClusterPassKeys keys;

        Node(String name) {
            state = StateDirectory.open(dir.resolve(name), null);
            passes = new BrowserPasses(PassKeyFile.loadOrCreate(state.path(), random));
            keys = new ClusterPassKeys(name, store, state.path(), passes, state.audit(), clock);
        }

        PassKeyRing file() {
            return PassKeyFile.load(state.path());
        }

        String pass() {
            return passes.mint("p" + Long.toHexString(random.nextLong() & 0xffff), false, ADDRESS, AGENT,
                    NOW + WEEK);
        }

        boolean accepts(String pass, long nowMillis) {
            return passes.check(pass, ADDRESS, AGENT, nowMillis) != null;
        }
    }

    @Test
    void theFirstNodePublishesItsRingAndTheNextAdoptsItInItsEngineFileAndAuditLog() {
        Node a = new Node("a");
        Node b = new Node("b");
        PassKeyRing ofA = a.passes.keys();
        String ownPassOfB = b.pass();

        a.keys.sync();
        b.keys.sync();

        assertThat(PassKeyFile.parse(store.held().text())).isEqualTo(ofA);
        assertThat(store.held().node()).isEqualTo("a");
        assertThat(b.passes.keys()).isEqualTo(ofA);
        assertThat(b.file()).isEqualTo(ofA); // a restart while Redis is down still accepts the cluster's passes
        assertThat(a.file()).isEqualTo(ofA);
        assertThat(b.accepts(a.pass(), NOW)).isTrue();
        assertThat(b.accepts(ownPassOfB, NOW)).isFalse(); // its own first key was never the cluster's
        AuditEntry adopted = b.state.audit().newestFirst(1).get(0);
        assertThat(adopted.action()).isEqualTo("pass-key.adopt");
        assertThat(adopted.who()).isEqualTo("cluster:a"); // the node that put it into Redis
        assertThat(adopted.detail()).contains(String.format("%08x", ofA.current().id()));
        assertThat(a.state.audit().newestFirst(10)).isEmpty(); // nothing changed on a
    }

    @Test
    void aRotationInOneNodesFileReachesTheOtherAndThePreviousKeyStaysGoodForOnePassLifetime() {
        Node a = new Node("a");
        Node b = new Node("b");
        a.keys.sync();
        b.keys.sync();
        String before = b.pass();

        PassKeyRing rotated = PassKeyFile.rotate(a.state.path(), NOW, WEEK, random); // sluice-server pass-key rotate
        a.keys.sync();
        b.keys.sync();

        assertThat(PassKeyFile.parse(store.held().text())).isEqualTo(rotated);
        assertThat(a.passes.keys()).isEqualTo(rotated);
        assertThat(b.passes.keys()).isEqualTo(rotated);
        assertThat(b.file()).isEqualTo(rotated);
        assertThat(b.accepts(before, NOW)).isTrue();
        assertThat(a.accepts(before, NOW + WEEK - 1)).isTrue();
        assertThat(a.accepts(before, NOW + WEEK)).isFalse(); // the previous key's lifetime is over

        String second = b.pass();
        PassKeyFile.rotate(b.state.path(), NOW + 1, WEEK, random); // the next rotation, on the other node
        b.keys.sync();
        a.keys.sync();
        assertThat(a.passes.keys()).isEqualTo(b.passes.keys()).isEqualTo(b.file());
        assertThat(a.accepts(second, NOW + 1)).isTrue();
        assertThat(a.accepts(before, NOW + 1)).isFalse(); // a key older than the previous one: retired
    }

    @Test
    void twoRotationsAtOnceEndOnOneRingTheOtherNodesRotationLostAndSaid() {
        Node a = new Node("a");
        Node b = new Node("b");
        a.keys.sync();
        b.keys.sync();
        PassKeyRing ofA = PassKeyFile.rotate(a.state.path(), NOW, WEEK, random);
        PassKeyFile.rotate(b.state.path(), NOW, WEEK, random);
        // b read the cluster's ring before a's rotation landed: its publication is the one that loses
        b.keys.sync(); // b's rotation lands first this time...
        PassKeyRing ofB = b.passes.keys();
        a.keys.sync(); // ...and a's, judged against it, is no rotation of the cluster's ring: a takes b's
        assertThat(a.passes.keys()).isEqualTo(ofB).isEqualTo(a.file());
        assertThat(ofA).isNotEqualTo(ofB);

        PassKeyRing again = PassKeyFile.rotate(a.state.path(), NOW, WEEK, random);
        store.beforeNextPublish(() -> store.hold(new SharedRing(PassKeyFile.format(
                PassKeyRing.of(PassKey.random(random))), "c", NOW)));
        a.keys.sync(); // c's write landed between a's read and its compare-and-set
        assertThat(a.passes.keys()).isNotEqualTo(again).isEqualTo(PassKeyFile.parse(store.held().text()));
        assertThat(a.file()).isEqualTo(a.passes.keys());
    }

    @Test
    void aRingThatCannotBeParsedIsRefusedSaidAndChangesNothing() throws Exception {
        Node a = new Node("a");
        a.keys.sync();
        PassKeyRing ours = a.passes.keys();
        String fileBefore = Files.readString(a.state.path().resolve(PassKeyFile.FILE));
        SharedRing damaged = new SharedRing("current=c2hvcnQ=\n", "z", NOW);
        store.hold(damaged);

        a.keys.sync();

        assertThat(a.keys.refused()).contains("current has 5 bytes");
        assertThat(a.passes.keys()).isEqualTo(ours);
        assertThat(Files.readString(a.state.path().resolve(PassKeyFile.FILE))).isEqualTo(fileBefore);
        assertThat(store.held()).isEqualTo(damaged);
        assertThat(a.state.audit().newestFirst(10)).isEmpty();

        // the same with a node that never had the cluster's ring: it keeps its own
        Node b = new Node("b");
        PassKeyRing ofB = b.passes.keys();
        b.keys.sync();
        assertThat(b.passes.keys()).isEqualTo(ofB).isEqualTo(b.file());
        assertThat(b.keys.refused()).isNotNull();
    }

    @Test
    void redisDownAtStartTheNodeUsesItsFileAndAdoptsTheClustersRingWhenRedisAnswers() {
        Node a = new Node("a");
        PassKeyRing cluster = PassKeyRing.of(PassKey.random(random));
        store.hold(new SharedRing(PassKeyFile.format(cluster), "x", NOW));
        store.down(true);
        Node b = new Node("b");
        PassKeyRing own = b.passes.keys();

        b.keys.sync();
        assertThat(b.keys.saidRedisDown()).isFalse(); // a link still connecting at start is no outage yet
        for (int round = 1; round < ClusterPassKeys.UNANSWERED_ROUNDS; round++) {
            b.keys.sync();
        }
        assertThat(b.keys.saidRedisDown()).isTrue();
        assertThat(b.keys.answered()).isFalse();
        assertThat(b.passes.keys()).isEqualTo(own).isEqualTo(b.file());

        store.down(false);
        b.keys.sync();
        assertThat(b.keys.answered()).isTrue();
        assertThat(b.passes.keys()).isEqualTo(cluster).isEqualTo(b.file());
        a.keys.sync();
        assertThat(a.passes.keys()).isEqualTo(cluster);
    }

    @Test
    void redisRestartedEmptyGetsTheNodesRingBack() {
        Node a = new Node("a");
        a.keys.sync();
        PassKeyRing ours = a.passes.keys();
        store.hold(SharedRing.NONE);
        a.keys.sync();
        assertThat(PassKeyFile.parse(store.held().text())).isEqualTo(ours);
        assertThat(a.passes.keys()).isEqualTo(ours);
    }

    @Test
    void aDamagedFileKeepsTheKeysInUseAndTheClustersRingPutsItRight() throws Exception {
        Node a = new Node("a");
        PassKeyRing cluster = PassKeyRing.of(PassKey.random(random));
        store.hold(new SharedRing(PassKeyFile.format(cluster), "x", NOW));
        Files.writeString(a.state.path().resolve(PassKeyFile.FILE), "damaged");
        a.keys.sync();
        assertThat(a.passes.keys()).isEqualTo(cluster).isEqualTo(a.file());
    }
}
