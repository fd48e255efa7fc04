package io.sluice.server.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.KeyValue;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.server.state.AuditEntry;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reads the cluster's change log and hands each newer version to {@link SharedPolicy#deliver}. No thread
 * waits on Redis: each step is an async command whose continuation runs on the cluster's scheduler.
 *
 * <p>A cycle is either a <em>catch-up</em> (read the document's epoch and version; seed it if Redis has none
 * or an older one; restart the cursor when the epoch changed; read the log to its end; take the document
 * itself if the log was trimmed past what this node has) or a <em>live read</em> ({@code XREAD BLOCK} from
 * the cursor, woken by the next {@code XADD}). Start, every failure and every quiet block end in a catch-up,
 * so a node that was disconnected, or talks to a Redis that restarted empty, finds its way back alone.
 */
final class PolicyFollower implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PolicyFollower.class.getName());
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final int BATCH = 100;
    private static final String START = "0-0";

    private final SharedPolicy shared;
    private final RedisLink link;
    private final ClusterSettings settings;
    private final ScheduledExecutorService scheduler;
    private volatile boolean running = true;
    // Touched only by the cycle, which runs one step at a time.
    private String cursor = START;
    private String epoch;
    private boolean catchUp = true;
    /** Completes at the end of the first catch-up: from then on this node runs the cluster's version and follows. */
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();

    PolicyFollower(SharedPolicy shared, RedisLink link, ClusterSettings settings, ScheduledExecutorService scheduler) {
        this.shared = shared;
        this.link = link;
        this.settings = settings;
        this.scheduler = scheduler;
    }

    void start() {
        scheduler.execute(this::cycle);
    }

    private void cycle() {
        if (!running) {
            return;
        }
        CompletableFuture<Void> step = catchUp ? catchUp() : readLive();
        step.whenCompleteAsync((ignored, failure) -> {
            if (failure != null) {
                catchUp = true;
                LOG.log(System.Logger.Level.DEBUG, () -> "cluster: policy follower retries: "
                        + ConnectionMonitor.describe(failure));
                schedule(settings.heartbeat().toMillis());
            } else {
                schedule(0);
            }
        }, scheduler);
    }

    private void schedule(long delayMillis) {
        if (running) {
            try {
                scheduler.schedule(this::cycle, delayMillis, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                running = false; // shutting down
            }
        }
    }

    private CompletableFuture<Void> catchUp() {
        PolicyListener listener = shared.listener();
        return shared.clockOffset(listener.clock()).thenAccept(listener::redisClockOffset)
                .thenCompose(ignored -> catchUpPolicy());
    }

    private CompletableFuture<Void> catchUpPolicy() {
        return link.<List<KeyValue<String, String>>>call(c -> c.hmget(shared.documentKey(),
                "epoch", "version")).thenComposeAsync(fields -> {
                    String redisEpoch = fields.get(0).getValueOrElse(null);
                    String version = fields.get(1).getValueOrElse(null);
                    Policy mine = shared.listener().current();
                    if (version == null || Long.parseLong(version) < mine.version()) {
                        return shared.seed(mine).thenApply(reply -> {
                            if ((Long) reply.get(0) == 1) {
                                LOG.log(System.Logger.Level.INFO, "cluster: node " + shared.node()
                                        + " put its policy version " + mine.version() + " into Redis, which held "
                                        + (version == null ? "none" : "version " + version));
                            }
                            return null; // catch up again, now against the seeded document
                        });
                    }
                    if (!Objects.equals(redisEpoch, epoch)) {
                        epoch = redisEpoch;
                        cursor = START;
                    }
                    return drain().thenCompose(ignored -> takeDocumentIfAhead(Long.parseLong(version)))
                            .thenRun(() -> {
                                catchUp = false;
                                caughtUp.complete(null);
                            });
                }, scheduler);
    }

    /** Reads the log from the cursor to its end, without blocking. */
    private CompletableFuture<Void> drain() {
        return read(XReadArgs.Builder.count(BATCH)).thenComposeAsync(entries -> entries < BATCH
                ? CompletableFuture.completedFuture(null) : drain(), scheduler);
    }

    /** When the log no longer holds every version this node missed, take the document itself. */
    private CompletableFuture<Void> takeDocumentIfAhead(long documentVersion) {
        if (documentVersion <= shared.appliedVersion()) {
            return CompletableFuture.completedFuture(null);
        }
        return shared.document().thenAcceptAsync(policy -> {
            if (policy != null) {
                LOG.log(System.Logger.Level.WARNING, "cluster: node " + shared.node() + " missed log entries "
                        + "trimmed meanwhile; took policy version " + policy.version() + " without their audit lines");
                shared.deliver(new PolicyChange(policy, null, null));
            }
        }, scheduler);
    }

    private CompletableFuture<Void> readLive() {
        return read(XReadArgs.Builder.block(settings.followBlock()).count(BATCH)).thenAccept(entries -> {
            if (entries == 0) {
                catchUp = true; // a quiet spell: check the document (epoch, version) before blocking again
            }
        });
    }

    /** One XREAD from the cursor; delivers what it got, in order, and completes with how many entries. */
    @SuppressWarnings("unchecked") // Lettuce's xread takes generic varargs of offsets; we pass one
    private CompletableFuture<Integer> read(XReadArgs args) {
        String from = cursor;
        return link.<List<StreamMessage<String, String>>>call(c -> c.xread(args,
                XReadArgs.StreamOffset.from(shared.logKey(), from))).thenApplyAsync(messages -> {
                    if (messages == null) {
                        return 0;
                    }
                    for (StreamMessage<String, String> message : messages) {
                        deliver(message.getBody(), message.getId());
                        cursor = message.getId();
                    }
                    return messages.size();
                }, scheduler);
    }

    private void deliver(Map<String, String> body, String id) {
        if ("bans".equals(body.get("kind"))) {
            PolicyChange change;
            try {
                change = PolicyChange.ofBans(Long.parseLong(body.get("version")), SharedPolicy.bans(body.get("added"),
                        body.get("removed"), shared.listener().current()), body.get("node"));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "cluster: unreadable bans in the policy log: " + e.getMessage());
                return;
            }
            if (!shared.deliver(change)) {
                catchUp = true; // a gap before this batch (trimmed, or missed): take the document
            }
            return;
        }
        Policy policy = parse(body.get("policy"), Policy.class);
        if (policy == null) {
            return;
        }
        String audit = body.get("audit");
        AuditEntry entry = audit == null || audit.isEmpty() ? null : parse(audit, AuditEntry.class);
        shared.deliver(new PolicyChange(policy, entry, body.get("node")));
    }

    private <T> T parse(String json, Class<T> type) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readValue(json, type);
        } catch (IOException e) {
            // A newer node's format, or damage: skip the entry loudly rather than stop following.
            LOG.log(System.Logger.Level.ERROR, "cluster: unreadable " + type.getSimpleName() + " in the policy log: "
                    + e.getMessage());
            return null;
        }
    }

    /** Completes once this node has caught up with the cluster's policy for the first time (never fails). */
    CompletableFuture<Void> caughtUp() {
        return caughtUp;
    }

    @Override
    public void close() {
        running = false;
    }
}
