package io.sluice.server;

import io.sluice.engine.AutomaticBanListener;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.change.PolicyHistory;
import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.StateDirectory;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * Persists and audits the bans the engine makes and removes by itself (escalation), like an operator's: the
 * live policy to {@code policy.json}, one audit line per ban, by {@code sluice}. The engine calls it on a request
 * thread, so the disk work runs on a thread of its own, in order.
 */
final class AutomaticBanRecorder implements AutomaticBanListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AutomaticBanRecorder.class.getName());

    private final ThrottleEngine engine;
    private final PolicyHistory history;
    private final StateDirectory state;
    private final InstantSource clock;
    private final AtomicBoolean saveQueued = new AtomicBoolean();
    private final ExecutorService writer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "sluice-automatic-bans");
        thread.setDaemon(true);
        return thread;
    });

    /** @param history where each version the engine installs is remembered, for merging edits made from it */
    AutomaticBanRecorder(ThrottleEngine engine, StateDirectory state, InstantSource clock, PolicyHistory history) {
        this.history = history;
        this.engine = engine;
        this.state = state;
        this.clock = clock;
    }

    @Override
    public void changed(Policy installed, List<Ban> added, List<Ban> removed) {
        history.remember(installed); // an operator may have read it and edit from it
        // One write of policy.json serves every ban made before it starts: a storm of automatic bans (up to
        // MAX_AUTOMATIC_BANS) would otherwise write the whole, growing policy once per ban.
        try {
            if (saveQueued.compareAndSet(false, true)) {
                writer.execute(this::saveLivePolicy);
            }
            writer.execute(() -> audit(added, removed));
        } catch (RejectedExecutionException e) {
            // stopping, with a request still being decided: the ban is in force, not recorded; never the request's
            // failure
            LOG.log(System.Logger.Level.WARNING, "an automatic ban made while stopping is not recorded: "
                    + added.size() + " added, " + removed.size() + " removed");
        }
    }

    private void saveLivePolicy() {
        saveQueued.set(false); // a ban made from now on queues a write of its own
        // the live policy, not the one handed over: a later change may already include this one; written while no
        // operator's change is between its own write and its swap, which this write would otherwise undo
        Lock automatic = engine.automaticChanges();
        automatic.lock();
        try {
            state.savePolicy(engine.policy());
        } catch (IOException | RuntimeException e) {
            failed(e);
        } finally {
            automatic.unlock();
        }
    }

    private void audit(List<Ban> added, List<Ban> removed) {
        try {
            for (Ban ban : added) {
                state.audit().append(new AuditEntry(clock.instant(), ThrottleEngine.AUTOMATIC_BAN_AUTHOR, "ban.add",
                        "banned " + ban.type().name().toLowerCase(Locale.ROOT) + " " + ban.value() + " until "
                                + ban.expiresAt() + " (" + ban.reason() + ")",
                        null, PolicyJson.mapper().valueToTree(ban)));
            }
            for (Ban ban : removed) {
                state.audit().append(new AuditEntry(clock.instant(), ThrottleEngine.AUTOMATIC_BAN_AUTHOR, "ban.expire",
                        "expired " + ban.type().name().toLowerCase(Locale.ROOT) + " " + ban.value(),
                        PolicyJson.mapper().valueToTree(ban), null));
            }
        } catch (IOException | RuntimeException e) {
            failed(e);
        }
    }

    /** The ban is in force in memory; a disk failure must not undo it, so it is reported loudly. */
    private static void failed(Exception e) {
        LOG.log(System.Logger.Level.ERROR, "cannot record an automatic ban: " + e.getMessage(), e);
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
