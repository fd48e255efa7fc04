package io.sluice.server;

import io.sluice.engine.AutomaticBanListener;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.ChangeNotSavedException;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.change.PolicyConflict;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A cluster node's automatic bans (escalation): the engine proposes them ({@link
 * ThrottleEngine#delegateAutomaticBans}) and this makes each a change of the cluster's policy, through {@link
 * PolicyChanges} like an operator's ban, by {@code sluice}: in force on every node, in every node's audit log.
 * A ban on a client another node banned already, or a removal already made, is dropped (several nodes may see
 * the same offence or the same expiry). While Redis is unavailable an automatic ban is not made: the offender
 * is still refused by the rules it broke, and escalation bans it at its next offence. The engine calls this on
 * a request thread, so the work runs on a thread of its own, in order.
 */
final class ClusterAutomaticBans implements AutomaticBanListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClusterAutomaticBans.class.getName());
    private static final PolicyChanges.Author AUTHOR = new PolicyChanges.Author(ThrottleEngine.AUTOMATIC_BAN_AUTHOR,
            null);

    private final PolicyChanges changes;
    private final InstantSource clock;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "sluice-automatic-bans");
        thread.setDaemon(true);
        return thread;
    });

    ClusterAutomaticBans(PolicyChanges changes, InstantSource clock) {
        this.changes = changes;
        this.clock = clock;
    }

    @Override
    public void changed(Policy live, List<Ban> added, List<Ban> removed) {
        try {
            writer.execute(() -> {
                added.forEach(this::add);
                if (!removed.isEmpty()) {
                    remove(removed);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // stopping: the proposal is dropped, as any change made while a node stops
        }
    }

    private void add(Ban ban) {
        String what = ban.type().name().toLowerCase(Locale.ROOT) + " " + ban.value();
        run(() -> changes.applyIfChanged(AUTHOR, "ban.add", "banned " + what + " until " + ban.expiresAt() + " ("
                + ban.reason() + ")", policy -> {
                    List<Ban> active = policy.bans().stream().filter(b -> b.activeAt(clock.instant())).toList();
                    boolean banned = active.stream()
                            .anyMatch(b -> b.type() == ban.type() && b.value().equals(ban.value()));
                    long automatic = active.stream()
                            .filter(b -> ThrottleEngine.AUTOMATIC_BAN_AUTHOR.equals(b.author())).count();
                    if (banned || automatic >= ThrottleEngine.MAX_AUTOMATIC_BANS) {
                        return policy;
                    }
                    List<Ban> bans = new ArrayList<>(policy.bans());
                    bans.add(ban);
                    return policy.withBans(bans);
                }, policy -> policy.bans().stream().filter(b -> b.id().equals(ban.id())).findFirst().orElse(null)),
                "ban " + what);
    }

    private void remove(List<Ban> expired) {
        Set<String> ids = new HashSet<>();
        expired.forEach(ban -> ids.add(ban.id()));
        String detail = "expired " + String.join(", ", expired.stream()
                .map(b -> b.type().name().toLowerCase(Locale.ROOT) + " " + b.value()).toList());
        run(() -> changes.applyIfChanged(AUTHOR, "ban.expire", detail,
                policy -> policy.withBans(policy.bans().stream().filter(b -> !ids.contains(b.id())).toList()),
                policy -> {
                    List<Ban> still = policy.bans().stream().filter(b -> ids.contains(b.id())).toList();
                    return still.isEmpty() ? null : still;
                }), "remove expired automatic bans");
    }

    private static void run(Runnable change, String what) {
        try {
            change.run();
        } catch (ChangeNotSavedException | PolicyConflict e) {
            LOG.log(System.Logger.Level.WARNING, "cluster: automatic " + what + " not made: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "cluster: automatic " + what + " failed: " + e.getMessage(), e);
        }
    }

    /** Makes what is queued, then stops. */
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
