package io.sluice.server.cluster;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.DomainLedger;
import io.sluice.engine.governor.LedgerAnswer;
import io.sluice.engine.governor.LedgerChange;
import io.sluice.engine.governor.LedgerChoice;
import io.sluice.engine.governor.LedgerContext;
import io.sluice.engine.governor.Observation;
import io.sluice.engine.governor.PermitReason;
import io.sluice.engine.policy.GovernorPolicy;
import io.sluice.engine.telemetry.ClusterState;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The crawl governor's per-domain state in Redis (docs/architecture-cluster.md, "The crawl governor"): one
 * hash per domain, {@code sluice:gov:{DOMAIN}}, changed only by {@code governor.lua}, atomically on Redis's
 * clock. A permit is one {@code EVALSHA} that takes the next slot (so two nodes never grant the same one);
 * a report is one that judges the response with the shared last cut, floor, backoff, breaker and error
 * count (so a burst of 429s heard by several nodes cuts the rate once, and gives up once).
 *
 * <p>Every call goes on the node's request link: it fails at the link's deadline (tens of milliseconds) or
 * at once while Redis is unreachable, and the governor then paces alone. No thread waits: the answer
 * completes on {@code executor} (the admin server's threads, so what follows, a reply or a saved setting,
 * never runs on Redis's event loop).
 */
public final class RedisDomainLedger implements DomainLedger {
    /** A domain nobody asked about for an hour is forgotten, as by the local governor (plus any block). */
    static final long IDLE_MILLIS = 3_600_000;
    private static final LuaScript SCRIPT = LuaScript.load("governor");

    private final RedisLink link;
    private final ClusterSettings settings;
    private final Supplier<ClusterState> state;
    private final Supplier<String> reason;
    private final IntSupplier nodes;
    private final Executor executor;
    /** Null: Redis's clock, the one every node shares. */
    private final InstantSource clock;

    /**
     * @param clock the time the script judges by, or null for Redis's own ({@code TIME}), as in production: the
     *              nodes' clocks differ. A test passes the governor's injected clock, so both sides of
     *              {@code GovernorSpecification} run on it.
     */
    RedisDomainLedger(RedisLink link, ClusterSettings settings, Supplier<ClusterState> state,
                      Supplier<String> reason, IntSupplier nodes, Executor executor, InstantSource clock) {
        this.link = link;
        this.settings = settings;
        this.state = state;
        this.reason = reason;
        this.nodes = nodes;
        this.executor = executor;
        this.clock = clock;
    }

    /** The ledger of {@code node}'s cluster, on its request link; answers complete on {@code executor}. */
    public static RedisDomainLedger of(ClusterNode node, ClusterSettings settings, Executor executor) {
        return of(node, settings, executor, null);
    }

    /** {@link #of(ClusterNode, ClusterSettings, Executor)} judging time by {@code clock} (null: Redis's). */
    static RedisDomainLedger of(ClusterNode node, ClusterSettings settings, Executor executor, InstantSource clock) {
        return new RedisDomainLedger(node.requestLink(), settings, node::state, () -> node.health().reason(),
                () -> node.status().nodes(), executor, clock);
    }

    @Override
    public boolean available() {
        return state.get() == ClusterState.HEALTHY;
    }

    @Override
    public String unavailableReason() {
        return "cluster DEGRADED (" + reason.get() + ")";
    }

    @Override
    public int nodes() {
        return Math.max(1, nodes.getAsInt());
    }

    @Override
    public CompletionStage<LedgerAnswer> acquire(String domain, LedgerContext context) {
        return run(domain, args("permit", context));
    }

    /**
     * On one Redis (or when every domain's hash is in one slot of a Redis Cluster), one script over every domain's
     * hash: the choice and the slot taken are one atomic step. On a Redis Cluster whose slots they span, no script
     * may take them all: each domain's state is read first (one {@code HMGET} each, side by side), the domain whose
     * slot comes first is picked as the script would (a tie to the first asked about), and the script then runs over
     * the domains of that one's slot, where it chooses again, atomically, and takes the slot. Between the reading and
     * the grant another node may take the slot: the permit then says so (PACING and the wait), as a permit for that
     * domain would. Domains in the other slots are not marked as wanted by this call (docs/manual/cluster.md).
     */
    @Override
    public CompletionStage<LedgerChoice> acquireAny(List<String> domains, List<LedgerContext> contexts) {
        List<Integer> all = IntStream.range(0, domains.size()).boxed().toList();
        List<List<Integer>> groups = List.copyOf(link.bySlot(all, i -> key(domains.get(i))));
        CompletableFuture<List<Integer>> chosenGroup = groups.size() == 1 ? CompletableFuture.completedFuture(all)
                : firstReady(domains, contexts).thenApply(best -> groups.stream().filter(g -> g.contains(best))
                        .findFirst().orElseThrow());
        CompletableFuture<LedgerChoice> choice = chosenGroup.thenCompose(group -> permitAny(
                group.stream().map(domains::get).toList(), group.stream().map(contexts::get).toList())
                .thenApply(answer -> {
                    if (answer == null || answer.size() < 17) {
                        throw new IllegalStateException("governor.lua answered " + answer);
                    }
                    return new LedgerChoice(group.get(Integer.parseInt(String.valueOf(answer.get(16)))),
                            parse(answer));
                }));
        return onExecutor(choice, answer -> answer);
    }

    private CompletableFuture<List<Object>> permitAny(List<String> domains, List<LedgerContext> contexts) {
        List<String> args = args("permit-any", contexts.get(0));
        for (LedgerContext context : contexts) {
            args.add(Long.toString(context.floorMicros()));
        }
        for (LedgerContext context : contexts) {
            args.add(context.givenUpHere() ? "1" : "0");
        }
        String[] keys = domains.stream().map(this::key).toArray(String[]::new);
        return SCRIPT.run(link, ScriptOutputType.MULTI, keys, args.toArray(String[]::new));
    }

    /**
     * The index of the domain governor.lua's permit-any would grant, from each domain's hash as read now: not given
     * up, and the earliest of its next slot, its block's end and its open breaker's end (0 when all are given up).
     */
    private CompletableFuture<Integer> firstReady(List<String> domains, List<LedgerContext> contexts) {
        List<CompletableFuture<List<KeyValue<String, String>>>> reads = domains.stream()
                .map(domain -> link.<List<KeyValue<String, String>>>call(c -> c.hmget(key(domain), "tat", "blk",
                        "bst", "bou", "gu"))).toList();
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(done -> {
            int best = -1;
            long bestAt = 0;
            for (int i = 0; i < reads.size(); i++) {
                List<KeyValue<String, String>> fields = reads.get(i).join();
                boolean fresh = !fields.get(0).hasValue();
                boolean givenUp = fresh ? contexts.get(i).givenUpHere() : "1".equals(value(fields.get(4)));
                if (givenUp) {
                    continue;
                }
                long at = Math.max(number(fields.get(0)), number(fields.get(1)));
                if ("OPEN".equals(value(fields.get(2)))) {
                    at = Math.max(at, number(fields.get(3)));
                }
                if (best < 0 || at < bestAt) {
                    best = i;
                    bestAt = at;
                }
            }
            return Math.max(best, 0);
        });
    }

    private static String value(KeyValue<String, String> field) {
        return field.hasValue() ? field.getValue() : null;
    }

    private static long number(KeyValue<String, String> field) {
        return field.hasValue() ? (long) Double.parseDouble(field.getValue()) : -1;
    }

    @Override
    public CompletionStage<LedgerAnswer> report(String domain, Observation seen, LedgerContext context) {
        List<String> args = args("report", context);
        args.add(Integer.toString(seen.status()));
        args.add(seen.error() ? "1" : "0");
        args.add(seen.slowDown() ? "1" : "0");
        args.add(seen.retryAfterSeconds() == null ? "" : seen.retryAfterSeconds().toString());
        args.add(seen.latencySignal() ? "1" : "0");
        args.add(seen.crawlDelayMicros() == null ? "" : seen.crawlDelayMicros().toString());
        return run(domain, args);
    }

    @Override
    public CompletionStage<LedgerAnswer> change(String domain, LedgerChange change, LedgerContext context) {
        List<String> args = args("change", context);
        args.add(change.kind().name());
        args.add(Double.toString(change.value()));
        return run(domain, args);
    }

    /** The domain's key; braces make it one hash slot, ready for a sharded Redis. */
    String key(String domain) {
        return settings.key("gov:{" + domain + "}");
    }

    private CompletionStage<LedgerAnswer> run(String domain, List<String> args) {
        CompletableFuture<List<Object>> reply = SCRIPT.run(link, ScriptOutputType.MULTI,
                new String[] {key(domain)}, args.toArray(String[]::new));
        return onExecutor(reply, RedisDomainLedger::parse);
    }

    private <R, T> CompletionStage<T> onExecutor(CompletableFuture<R> reply, Function<R, T> read) {
        // handleAsync, not thenApplyAsync: a failure (the deadline fires on Lettuce's timer) must hop too.
        return reply.handleAsync((answer, failure) -> {
            if (failure != null) {
                throw failure instanceof CompletionException completion ? completion
                        : new CompletionException(failure);
            }
            return read.apply(answer);
        }, executor);
    }

    private List<String> args(String operation, LedgerContext context) {
        GovernorPolicy p = context.policy();
        List<String> args = new ArrayList<>(25);
        args.add(operation);
        args.add(Double.toString(p.initialRate()));
        args.add(Double.toString(p.minRate()));
        args.add(Double.toString(p.maxRate()));
        args.add(Double.toString(p.increasePerSecond()));
        args.add(Double.toString(p.decreaseFactor()));
        args.add(Double.toString(p.slowStartDoublingSeconds()));
        args.add(Integer.toString(p.backoffBaseMillis()));
        args.add(Integer.toString(p.backoffMaxMillis()));
        args.add(Integer.toString(p.backoffForgiveSeconds()));
        args.add(Integer.toString(p.breakerErrorPercent()));
        args.add(Integer.toString(p.breakerMinCalls()));
        args.add(Integer.toString(p.breakerOpenSeconds()));
        args.add(Integer.toString(p.breakerTrialRequests()));
        args.add(Integer.toString(p.giveUpAfterErrors()));
        args.add(Long.toString(context.floorMicros()));
        args.add(context.givenUpHere() ? "1" : "0");
        args.add(Double.toString(context.jitter()));
        args.add(Long.toString(IDLE_MILLIS));
        args.add(clock == null ? "" : Long.toString(micros(clock.instant())));
        return args;
    }

    private static long micros(Instant now) {
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000);
    }

    static LedgerAnswer parse(List<Object> reply) {
        if (reply == null || reply.size() < 16) {
            throw new IllegalStateException("governor.lua answered " + reply);
        }
        String[] r = new String[reply.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = String.valueOf(reply.get(i));
        }
        return new LedgerAnswer("1".equals(r[0]), Long.parseLong(r[1]), reason(r[2]), Double.parseDouble(r[3]),
                Long.parseLong(r[4]), Long.parseLong(r[5]), reason(r[6]), BreakerState.valueOf(r[7]),
                Long.parseLong(r[8]), Integer.parseInt(r[9]), Integer.parseInt(r[10]), "1".equals(r[11]),
                "1".equals(r[12]), "1".equals(r[13]), Integer.parseInt(r[14]), Integer.parseInt(r[15]));
    }

    private static PermitReason reason(String text) {
        return text.isEmpty() ? null : PermitReason.valueOf(text);
    }
}
