package io.sluice.server.change;

import io.sluice.engine.AutomaticBanProposals;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes the engine's automatic bans off the request path and makes them changes through {@link PolicyChanges}, the
 * policy's one writer, a batch at a time: whatever was proposed while the last batch was being written becomes the
 * next version, with one write of {@code policy.json} and one fsync of the audit log (or one small record in a
 * cluster's change log). So a ban is on disk within the write under way plus its own (milliseconds; under a storm
 * of {@link ThrottleEngine#MAX_AUTOMATIC_BANS} bans, well under a second): only a ban made in that window is lost to
 * a {@code kill -9}.
 *
 * <p>Bounded: at most {@value #QUEUE} proposals wait; beyond them a proposal is refused (the engine keeps the ban in
 * force in memory, counts and logs it). The same thread removes expired automatic bans, judged on the engine's ban
 * clock (Redis's in a cluster), and recompiles the policy when a ban expired, at most {@link #TICK_MILLIS} after.
 */
public final class AutomaticBanWriter implements AutomaticBanProposals, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AutomaticBanWriter.class.getName());
    /** The most proposals waiting for the writer. */
    static final int QUEUE = ThrottleEngine.MAX_AUTOMATIC_BANS;
    /** The most bans one version takes. */
    static final int BATCH = 2_000;
    /** How often expired bans are looked for. */
    static final long TICK_MILLIS = 1_000;

    /**
     * Put in the queue by {@link #close} to end the writer's wait for the next tick at once (an interrupt would break
     * a file write); never written.
     */
    private static final Ban WAKE = new Ban("writer-stopping", BanType.IP, "0.0.0.0", "the writer is stopping",
            "sluice", Instant.EPOCH, Instant.EPOCH);

    private final ThrottleEngine engine;
    private final PolicyChanges changes;
    private final BlockingQueue<Ban> queue = new ArrayBlockingQueue<>(QUEUE);
    private final AtomicLong refused = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    private AutomaticBanWriter(ThrottleEngine engine, PolicyChanges changes) {
        this.engine = engine;
        this.changes = changes;
        this.thread = new Thread(this::run, "sluice-policy-writer");
        thread.setDaemon(true);
    }

    /** Starts the writer and makes it where {@code engine} proposes its automatic bans. */
    public static AutomaticBanWriter start(ThrottleEngine engine, PolicyChanges changes) {
        AutomaticBanWriter writer = new AutomaticBanWriter(engine, changes);
        writer.thread.start();
        engine.proposeAutomaticBansTo(writer);
        return writer;
    }

    /** On the request thread: never blocks. */
    @Override
    public boolean propose(Ban ban) {
        if (running && queue.offer(ban)) {
            return true;
        }
        refused.incrementAndGet();
        return false;
    }

    /** Proposals refused because the queue was full (or the writer stopping). */
    public long refused() {
        return refused.get();
    }

    private void run() {
        List<Ban> batch = new ArrayList<>();
        while (running || !queue.isEmpty()) {
            try {
                Ban first = queue.poll(TICK_MILLIS, TimeUnit.MILLISECONDS);
                if (first != null) {
                    batch.add(first);
                    queue.drainTo(batch, BATCH - 1);
                    batch.removeIf(ban -> ban == WAKE);
                }
            } catch (InterruptedException e) {
                running = false; // not interrupted by close (an interrupt would break a file write): stop
            }
            write(batch);
            batch.clear();
        }
    }

    private void write(List<Ban> batch) {
        try {
            engine.refreshExpiredBans();
            List<Ban> expired = engine.expiredAutomaticBans();
            if (!batch.isEmpty() || !expired.isEmpty()) {
                changes.applyAutomatic(batch, expired);
            }
        } catch (ChangeNotSavedException e) {
            // expired bans alone are proposed again at the next tick: said once a tick only at DEBUG (Redis down)
            LOG.log(batch.isEmpty() ? System.Logger.Level.DEBUG : System.Logger.Level.ERROR, "automatic bans not "
                    + "recorded (" + batch.size() + " proposed): they are in force in memory on this node until they "
                    + "expire: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "automatic bans not recorded (" + batch.size() + " proposed): "
                    + e.getMessage(), e);
        }
    }

    /** Writes what is queued, then stops (within a tick, and the last write). */
    @Override
    public void close() {
        running = false;
        queue.offer(WAKE); // when the queue is full, the writer is not waiting anyway
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
