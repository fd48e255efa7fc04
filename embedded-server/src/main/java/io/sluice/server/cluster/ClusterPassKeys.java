package io.sluice.server.cluster;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.PassKeyFile;
import io.sluice.server.state.PassKeyFollower;
import io.sluice.server.state.StateException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The browser check's pass keys of a node in a cluster (issue 46): one ring for the whole cluster, in Redis
 * ({@link RedisRingStore}), so a pass made through one node is good on every node.
 *
 * <p>Every {@link #PERIOD} (and at once when the state directory's {@code browser-pass.key} changes) one thread of
 * its own reads the node's file and the cluster's ring and follows {@link PassKeyAdoption}'s rules: the first node to
 * find no ring in Redis publishes its own (a compare-and-set, so two nodes starting at once agree on one); a node
 * adopts the cluster's ring into its engine and its file (so a node restarted while Redis is down still accepts the
 * passes); a rotation made in a node's file ({@code sluice-server pass-key rotate}) is published to the cluster, and
 * every other node adopts it at its next round: within {@link #PERIOD} and a Redis round trip. Each node writes the
 * adoption of a new key to its audit log. A ring this node cannot parse is refused (an error in the log, once per
 * ring) and nothing changes. While Redis does not answer the node signs and checks with the ring it has, and says so
 * once at start.
 *
 * <p>Not a request's concern: requests read the engine's ring ({@link BrowserPasses}) and never wait on any of this.
 */
public final class ClusterPassKeys implements AutoCloseable {
    /** How often a node compares its ring with the cluster's. */
    static final Duration PERIOD = Duration.ofSeconds(1);
    /**
     * Rounds without an answer before a starting node says Redis does not answer: each waits up to the admin deadline
     * for the link, and a Redis Cluster's first connection (its topology first) can take longer than one.
     */
    static final int UNANSWERED_ROUNDS = 3;
    private static final System.Logger LOG = System.getLogger(ClusterPassKeys.class.getName());

    private final String node;
    private final RingStore store;
    private final Path stateDir;
    private final BrowserPasses passes;
    private final AuditLog audit;
    private final InstantSource clock;
    private ScheduledExecutorService timer;
    // Touched only by sync(), which is synchronized.
    private boolean answered;
    private boolean saidUnanswered;
    private String refusedText;
    private boolean saidUnreadableFile;
    private long rounds;
    private int unansweredRounds;

    ClusterPassKeys(String node, RingStore store, Path stateDir, BrowserPasses passes, AuditLog audit,
                    InstantSource clock) {
        this.node = node;
        this.store = store;
        this.stateDir = stateDir;
        this.passes = passes;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * Makes {@code node}'s passes follow the cluster's ring from now on; the state directory's file is then this
     * class's to follow ({@code follower} reports its changes here instead of installing them).
     *
     * @param passes the engine's passes, holding the ring of the state directory's file (made at first start)
     */
    public static ClusterPassKeys start(ClusterNode node, ClusterSettings settings, Path stateDir,
                                        BrowserPasses passes, AuditLog audit, PassKeyFollower follower,
                                        InstantSource clock) {
        ClusterPassKeys keys = new ClusterPassKeys(node.name(), new RedisRingStore(node.adminLink(), settings),
                stateDir, passes, audit, clock);
        keys.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "sluice-cluster-pass-keys");
            thread.setDaemon(true);
            return thread;
        });
        follower.divert(keys::wake);
        keys.timer.scheduleWithFixedDelay(keys::syncQuietly, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        return keys;
    }

    /** A round now: the file changed (an operator's rotation, most likely). */
    private void wake() {
        ScheduledExecutorService current = timer;
        if (current != null && !current.isShutdown()) {
            current.execute(this::syncQuietly);
        }
    }

    private void syncQuietly() {
        try {
            sync();
        } catch (RuntimeException e) {
            // one round failed (a file that cannot be written, say); the next one tries again
            LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + ": browser pass keys: " + e.getMessage(), e);
        }
    }

    /** One round: compare this node's ring with the cluster's and act on the difference. */
    synchronized void sync() {
        try {
            round();
        } finally {
            rounds++;
        }
    }

    private void round() {
        PassKeyRing fromFile = fileRing();
        PassKeyRing local = fromFile != null ? fromFile : passes.keys();
        SharedRing shared;
        try {
            shared = store.read();
        } catch (RuntimeException e) {
            unanswered(e);
            return;
        }
        if (!answered) {
            answered = true;
            if (saidUnanswered) {
                LOG.log(System.Logger.Level.INFO, "cluster: node " + node + ": Redis answers; the browser pass keys "
                        + "follow the cluster's ring from now on");
            }
        }
        PassKeyAdoption.Step step = PassKeyAdoption.decide(local, shared);
        if (!(step instanceof PassKeyAdoption.Refuse)) {
            refusedText = null; // a ring refused again later is said again
        }
        act(step, shared, local, fromFile, true);
    }

    private void act(PassKeyAdoption.Step step, SharedRing shared, PassKeyRing local, PassKeyRing fromFile,
                     boolean firstTry) {
        if (step instanceof PassKeyAdoption.Keep) {
            install(local); // after a publication whose answer was lost: the cluster has it, so may this engine
        } else if (step instanceof PassKeyAdoption.Refuse refuse) {
            refuse(refuse.reason());
        } else if (step instanceof PassKeyAdoption.Adopt adopt) {
            adopt(adopt.ring(), shared, fromFile);
        } else if (step instanceof PassKeyAdoption.Publish publish) {
            RingStore.Published outcome;
            try {
                outcome = store.publish(publish.expected(), PassKeyFile.format(local), node, clock.millis());
            } catch (RuntimeException e) {
                unanswered(e);
                return;
            }
            if (outcome.written()) {
                install(local);
                LOG.log(System.Logger.Level.INFO, publish.rotation()
                        ? "cluster: node " + node + " gave its rotated browser pass key " + id(local.current().id())
                                + " to the cluster; every node takes it within " + PERIOD.toSeconds() + " s"
                        : "cluster: node " + node + " put its browser pass key " + id(local.current().id())
                                + " into Redis, which held none; every node takes it");
            } else if (firstTry) {
                if (publish.rotation()) {
                    LOG.log(System.Logger.Level.WARNING, "cluster: node " + node + ": the browser pass key rotated "
                            + "here (" + id(local.current().id()) + ") was overtaken by a change of the cluster's "
                            + "ring made on node " + outcome.held().node() + "; this node takes the cluster's");
                }
                act(PassKeyAdoption.decide(local, outcome.held()), outcome.held(), local, fromFile, false);
            }
        }
    }

    private void adopt(PassKeyRing cluster, SharedRing shared, PassKeyRing fromFile) {
        boolean written;
        try {
            written = PassKeyFile.replace(stateDir, fromFile, cluster);
        } catch (StateException e) {
            // the engine follows the cluster all the same; the file catches up at a later round
            LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + " took the cluster's browser pass keys but "
                    + "could not write them to its state directory: " + e.getMessage());
            written = true;
        }
        if (!written) {
            return; // the file changed since it was read (an operator's rotation): judged at the next round
        }
        PassKeyRing before = passes.keys();
        install(cluster);
        if (!before.current().equals(cluster.current())) {
            String detail = "took the cluster's browser pass key " + id(cluster.current().id()) + " in place of "
                    + id(before.current().id()) + (cluster.previous() == null ? "" : "; the previous key "
                    + id(cluster.previous().id()) + " is accepted until "
                    + Instant.ofEpochMilli(cluster.previousAcceptedUntilMillis())) + " (put into Redis by node "
                    + shared.node() + " at " + Instant.ofEpochMilli(shared.atMillis()) + ")";
            LOG.log(System.Logger.Level.INFO, "cluster: node " + node + " " + detail);
            try {
                audit.append(new AuditEntry(clock.instant(), "cluster:" + shared.node(), "pass-key.adopt", detail,
                        null, null));
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + ": the audit log could not record "
                        + "that it " + detail + ": " + e.getMessage());
            }
        }
    }

    private void install(PassKeyRing ring) {
        if (!ring.equals(passes.keys())) {
            passes.keys(ring);
        }
    }

    private void refuse(String reason) {
        if (!reason.equals(refusedText)) {
            refusedText = reason;
            LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + " refuses the browser pass key ring in "
                    + "Redis (" + reason + ") and keeps its own, key " + id(passes.keys().current().id())
                    + ": a pass made on another node may be no pass here. Put a good ring back by deleting the key "
                    + "(the first node to look publishes its own) or with sluice-server pass-key rotate on a node");
        }
    }

    private void unanswered(RuntimeException e) {
        if (!answered && !saidUnanswered && ++unansweredRounds >= UNANSWERED_ROUNDS) {
            saidUnanswered = true;
            LOG.log(System.Logger.Level.WARNING, "cluster: node " + node + ": Redis does not answer ("
                    + e.getMessage() + "); it signs and checks browser passes with its state directory's "
                    + PassKeyFile.FILE + ", key " + id(passes.keys().current().id()) + ", until it does");
        }
    }

    /** The state directory's ring, or null when the file cannot be read (said once). */
    private PassKeyRing fileRing() {
        try {
            PassKeyRing ring = PassKeyFile.load(stateDir);
            saidUnreadableFile = false;
            return ring;
        } catch (StateException e) {
            if (!saidUnreadableFile) {
                saidUnreadableFile = true;
                LOG.log(System.Logger.Level.ERROR, "cluster: node " + node + ": " + e.getMessage()
                        + "; the keys in use are kept, and the cluster's written there when it has them");
            }
            return null;
        }
    }

    /** What the last refused ring was refused for, or null: for tests. */
    synchronized String refused() {
        return refusedText;
    }

    /** How many rounds have ended: for tests. */
    synchronized long rounds() {
        return rounds;
    }

    /** Whether this node said, at start, that Redis does not answer: for tests. */
    synchronized boolean saidRedisDown() {
        return saidUnanswered;
    }

    /** Whether Redis has answered this node's pass key rounds yet. */
    synchronized boolean answered() {
        return answered;
    }

    private static String id(int id) {
        return String.format("%08x", id);
    }

    @Override
    public void close() {
        ScheduledExecutorService current = timer;
        if (current != null) {
            current.shutdownNow();
        }
    }
}
