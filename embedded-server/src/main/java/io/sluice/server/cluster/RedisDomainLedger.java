package io.sluice.server.cluster;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.sluice.engine.governor.BreakerState;
import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainLimitException;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * <p>The cluster keeps at most {@code maxDomains} domains, every node together (issue 50: one worker token naming
 * 110,000 domains left 107,705 hashes in Redis), counted in a sorted set of their own, {@code sluice:gov-domains},
 * by {@code governor-domains.lua}. governor.lua makes no hash for a domain that set has not counted: it answers
 * which are new, this class has them counted (one call, on the set's own slot), and runs it again with those
 * counted; one refused because the set is full is left out, and a call about nothing else completes with a
 * {@link DomainLimitException}. An operator's change is counted whatever the set holds. A count lasts until its
 * hash's expiry and a quarter hour beyond; governor.lua names the domains whose count must be carried further (a
 * domain in use: once a quarter hour) and this class extends them, without waiting.
 *
 * <p>Every call goes on the node's request link: it fails at the link's deadline (tens of milliseconds) or
 * at once while Redis is unreachable, and the governor then paces alone. No thread waits: the answer
 * completes on {@code executor} (the admin server's threads, so what follows, a reply or a saved setting,
 * never runs on Redis's event loop).
 */
public final class RedisDomainLedger implements DomainLedger {
    /** A domain nobody asked about for an hour is forgotten, as by the local governor (plus any block). */
    static final long IDLE_MILLIS = 3_600_000;
    /** How long a domain counts in the table of domains from its admission: its idle time and a quarter more. */
    static final long COUNTED_MICROS = IDLE_MILLIS * 1_250;
    private static final System.Logger LOG = System.getLogger(RedisDomainLedger.class.getName());
    private static final LuaScript SCRIPT = LuaScript.load("governor");
    private static final LuaScript DOMAINS = LuaScript.load("governor-domains");
    /** Fields of a governor.lua reply before the counts to extend; permit-any adds the index granted. */
    private static final int ANSWER_FIELDS = 17;
    /** How often a call goes round "new domains counted, call again" before it fails: a domain forgotten between. */
    private static final int ROUNDS = 3;

    private final RedisLink link;
    private final ClusterSettings settings;
    private final Supplier<ClusterState> state;
    private final Supplier<String> reason;
    private final IntSupplier nodes;
    private final Executor executor;
    /** Null: Redis's clock, the one every node shares. */
    private final InstantSource clock;
    /** Domains the cluster keeps at most, every node together. */
    private final int maxDomains;

    /**
     * @param clock the time the script judges by, or null for Redis's own ({@code TIME}), as in production: the
     *              nodes' clocks differ. A test passes the governor's injected clock, so both sides of
     *              {@code GovernorSpecification} run on it.
     */
    RedisDomainLedger(RedisLink link, ClusterSettings settings, Supplier<ClusterState> state,
                      Supplier<String> reason, IntSupplier nodes, Executor executor, InstantSource clock,
                      int maxDomains) {
        this.link = link;
        this.settings = settings;
        this.state = state;
        this.reason = reason;
        this.nodes = nodes;
        this.executor = executor;
        this.clock = clock;
        this.maxDomains = maxDomains;
    }

    /** The ledger of {@code node}'s cluster, on its request link; answers complete on {@code executor}. */
    public static RedisDomainLedger of(ClusterNode node, ClusterSettings settings, Executor executor) {
        return of(node, settings, executor, null);
    }

    /** {@link #of(ClusterNode, ClusterSettings, Executor)} judging time by {@code clock} (null: Redis's). */
    static RedisDomainLedger of(ClusterNode node, ClusterSettings settings, Executor executor, InstantSource clock) {
        return of(node, settings, executor, clock, CrawlGovernor.DEFAULT_MAX_DOMAINS);
    }

    /** {@link #of(ClusterNode, ClusterSettings, Executor, InstantSource)} keeping at most {@code maxDomains}. */
    static RedisDomainLedger of(ClusterNode node, ClusterSettings settings, Executor executor, InstantSource clock,
                                int maxDomains) {
        return new RedisDomainLedger(node.requestLink(), settings, node::state, () -> node.health().reason(),
                () -> node.status().nodes(), executor, clock, maxDomains);
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
        return run(domain, args("permit", context), false, context.worker());
    }

    /**
     * On one Redis (or when every domain's hash is in one slot of a Redis Cluster), one script over every domain's
     * hash: the choice and the slot taken are one atomic step. On a Redis Cluster whose slots they span, no script
     * may take them all: each domain's state is read first (one {@code HMGET} each, side by side), the domain whose
     * slot comes first is picked as the script would (a tie to the first asked about), and the script then runs over
     * the domains of that one's slot, where it chooses again, atomically, and takes the slot. Between the reading and
     * the grant another node may take the slot: the permit then says so (PACING and the wait), as a permit for that
     * domain would. Domains in the other slots are not marked as wanted by this call (docs/manual/cluster.md). A domain
     * new to the cluster when its table of domains is full is left out; when all are, the call completes with a
     * {@link DomainLimitException}.
     */
    @Override
    public CompletionStage<LedgerChoice> acquireAny(List<String> domains, List<LedgerContext> contexts) {
        List<Integer> all = IntStream.range(0, domains.size()).boxed().toList();
        return onExecutor(chooseAmong(domains, contexts, all), choice -> choice);
    }

    /**
     * {@link #acquireAny} over the domains at {@code candidates}; on a Redis Cluster, when every one of the chosen
     * slot's domains is refused by the table of domains, among the others.
     */
    private CompletableFuture<LedgerChoice> chooseAmong(List<String> domains, List<LedgerContext> contexts,
                                                        List<Integer> candidates) {
        List<List<Integer>> groups = List.copyOf(link.bySlot(candidates, i -> key(domains.get(i))));
        CompletableFuture<List<Integer>> chosenGroup = groups.size() == 1
                ? CompletableFuture.completedFuture(candidates)
                : firstReady(domains, contexts, candidates).thenApply(best -> groups.stream()
                        .filter(g -> g.contains(best)).findFirst().orElseThrow());
        Call call = new Call(domains, indices -> permitAnyArgs(indices, contexts), false, ANSWER_FIELDS + 1,
                contexts.get(0).worker());
        return chosenGroup.thenCompose(group -> run(call, group).thenApply(RedisDomainLedger::choice)
                .exceptionallyCompose(failure -> {
                    List<Integer> rest = candidates.stream().filter(i -> !group.contains(i)).toList();
                    return DomainLimitException.in(failure) == null || rest.isEmpty()
                            ? CompletableFuture.failedFuture(failure) : chooseAmong(domains, contexts, rest);
                }));
    }

    /** A permit-any answer: the domain granted (or refused), by its index in the list asked about. */
    private static LedgerChoice choice(Ran ran) {
        List<Object> answer = ran.reply();
        if (answer.size() < ANSWER_FIELDS + 1) {
            throw new IllegalStateException("governor.lua answered " + answer);
        }
        return new LedgerChoice(ran.indices().get(Integer.parseInt(String.valueOf(answer.get(ANSWER_FIELDS)))),
                parse(answer));
    }

    private List<String> permitAnyArgs(List<Integer> indices, List<LedgerContext> contexts) {
        List<String> args = args("permit-any", contexts.get(indices.get(0)));
        for (int i : indices) {
            args.add(Long.toString(contexts.get(i).floorMicros()));
        }
        for (int i : indices) {
            args.add(contexts.get(i).givenUpHere() ? "1" : "0");
        }
        return args;
    }

    /**
     * The index (among {@code candidates}) of the domain governor.lua's permit-any would grant, from each domain's hash
     * as read now: not given up, and the earliest of its next slot, its block's end and its open breaker's end (the
     * first candidate when all are given up).
     */
    private CompletableFuture<Integer> firstReady(List<String> domains, List<LedgerContext> contexts,
                                                  List<Integer> candidates) {
        List<CompletableFuture<List<KeyValue<String, String>>>> reads = candidates.stream()
                .map(i -> link.<List<KeyValue<String, String>>>call(c -> c.hmget(key(domains.get(i)), "tat", "blk",
                        "bst", "bou", "gu"))).toList();
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(done -> {
            int best = -1;
            long bestAt = 0;
            for (int n = 0; n < reads.size(); n++) {
                List<KeyValue<String, String>> fields = reads.get(n).join();
                int i = candidates.get(n);
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
            return best < 0 ? candidates.get(0) : best;
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
        return run(domain, args, false, context.worker());
    }

    @Override
    public CompletionStage<LedgerAnswer> change(String domain, LedgerChange change, LedgerContext context) {
        List<String> args = args("change", context);
        args.add(change.kind().name());
        args.add(Double.toString(change.value()));
        return run(domain, args, true, null);
    }

    /** The domain's key; braces make it one hash slot, ready for a sharded Redis. */
    String key(String domain) {
        return settings.key("gov:{" + domain + "}");
    }

    /** The key of the table of domains: one for the cluster, on a slot of its own. */
    String domainsKey() {
        return settings.key("gov-domains");
    }

    /**
     * @param operator an operator's change: the domain is counted whatever the table holds
     * @param worker   who asks or reports, or null for a trusted caller
     */
    private CompletionStage<LedgerAnswer> run(String domain, List<String> args, boolean operator, String worker) {
        return onExecutor(run(new Call(List.of(domain), indices -> args, operator, ANSWER_FIELDS, worker),
                List.of(0)), ran -> parse(ran.reply()));
    }

    private CompletableFuture<Ran> run(Call call, List<Integer> indices) {
        return run(call, indices, 1, Set.of());
    }

    /**
     * A governor.lua call and the domains it was about.
     *
     * @param indices the domains' indices in the list asked about, in the order of the call's keys
     * @param reply   the script's answer
     */
    private record Ran(List<Integer> indices, List<Object> reply) {
    }

    /**
     * One governor.lua call over some of {@code domains}, counting in the table of domains those it does not keep.
     *
     * @param args     the script's arguments for the domains at the indices given, but the admission marks
     * @param operator an operator's change: counted whatever the table holds
     * @param fields   the fields of its answer before the counts to extend
     * @param worker   who asks or reports (its token's name), or null for a trusted caller
     */
    private record Call(List<String> domains, Function<List<Integer>, List<String>> args, boolean operator,
                        int fields, String worker) {
    }

    /**
     * Runs {@code call} over the domains at {@code indices}. When governor.lua answers that some have no hash and are
     * not counted in the table of domains, has them counted and runs again without those refused (the table is
     * full); a call left with none completes with a {@link DomainLimitException}. Then extends the counts the answer
     * names.
     */
    private CompletableFuture<Ran> run(Call call, List<Integer> indices, int round, Set<Integer> counted) {
        List<String> arguments = new ArrayList<>(call.args().apply(indices));
        StringBuilder marks = new StringBuilder(indices.size());
        indices.forEach(i -> marks.append(counted.contains(i) ? '1' : '0'));
        arguments.add(call.worker() == null ? "" : call.worker());
        arguments.add(marks.toString());
        String[] keys = indices.stream().map(i -> key(call.domains().get(i))).toArray(String[]::new);
        CompletableFuture<List<Object>> reply = SCRIPT.run(link, ScriptOutputType.MULTI, keys,
                arguments.toArray(String[]::new));
        return reply.thenCompose(answer -> {
            if (answer == null || answer.isEmpty() || !"unknown".equals(String.valueOf(answer.get(0)))) {
                extendCounts(call, indices, answer);
                return CompletableFuture.completedFuture(new Ran(indices, answer));
            }
            if (round >= ROUNDS) {
                throw new IllegalStateException("governor.lua found domains it does not keep " + ROUNDS + " times");
            }
            List<Integer> unknown = answer.subList(1, answer.size()).stream()
                    .map(position -> indices.get(Integer.parseInt(String.valueOf(position)))).toList();
            return count(call, unknown).thenCompose(admitted -> {
                Set<Integer> nowCounted = new HashSet<>(counted);
                nowCounted.addAll(admitted.counted());
                List<Integer> kept = indices.stream().filter(i -> !unknown.contains(i) || nowCounted.contains(i))
                        .toList();
                if (kept.isEmpty()) {
                    throw new DomainLimitException(maxDomains, admitted.waitMicros());
                }
                return run(call, kept, round + 1, nowCounted);
            });
        });
    }

    /**
     * What {@code governor-domains.lua} counted of the domains asked about.
     *
     * @param counted    their indices, counted now (or already)
     * @param waitMicros when one was refused, until the first counted domain's count ends
     */
    private record Admission(List<Integer> counted, long waitMicros) {
    }

    private CompletableFuture<Admission> count(Call call, List<Integer> indices) {
        List<String> args = new ArrayList<>(5 + indices.size());
        args.add("admit");
        args.add(Integer.toString(maxDomains));
        args.add(now());
        args.add(Long.toString(COUNTED_MICROS));
        args.add(call.operator() ? "1" : "0");
        indices.forEach(i -> args.add(call.domains().get(i)));
        CompletableFuture<List<Object>> reply = DOMAINS.run(link, ScriptOutputType.MULTI,
                new String[] {domainsKey()}, args.toArray(String[]::new));
        return reply.thenApply(answer -> {
            if (answer == null || answer.size() != indices.size() + 1) {
                throw new IllegalStateException("governor-domains.lua answered " + answer);
            }
            List<Integer> counted = IntStream.range(0, indices.size())
                    .filter(n -> "1".equals(String.valueOf(answer.get(n)))).mapToObj(indices::get).toList();
            return new Admission(counted, Long.parseLong(String.valueOf(answer.get(indices.size()))));
        });
    }

    /**
     * Carries further the counts of the domains governor.lua names after its answer (pairs of the key's position and
     * the time), without waiting: a count not carried is a domain counted less long than its hash lives, until its
     * next call names it again.
     */
    private void extendCounts(Call call, List<Integer> indices, List<Object> answer) {
        int from = call.fields();
        if (answer == null || answer.size() <= from) {
            return;
        }
        List<String> args = new ArrayList<>();
        args.add("refresh");
        args.add(Integer.toString(maxDomains));
        args.add(now());
        for (int n = from; n + 1 < answer.size(); n += 2) {
            args.add(call.domains().get(indices.get(Integer.parseInt(String.valueOf(answer.get(n))))));
            args.add(String.valueOf(answer.get(n + 1)));
        }
        DOMAINS.<Long>run(link, ScriptOutputType.INTEGER, new String[] {domainsKey()}, args.toArray(String[]::new))
                .exceptionally(failure -> {
                    LOG.log(System.Logger.Level.DEBUG, "the table of domains was not extended: " + failure);
                    return null;
                });
    }

    private String now() {
        return clock == null ? "" : Long.toString(micros(clock.instant()));
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
        args.add(now());
        return args;
    }

    private static long micros(Instant now) {
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000);
    }

    static LedgerAnswer parse(List<Object> reply) {
        if (reply == null || reply.size() < ANSWER_FIELDS) {
            throw new IllegalStateException("governor.lua answered " + reply);
        }
        String[] r = new String[reply.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = String.valueOf(reply.get(i));
        }
        return new LedgerAnswer("1".equals(r[0]), Long.parseLong(r[1]), reason(r[2]), Double.parseDouble(r[3]),
                Long.parseLong(r[4]), Long.parseLong(r[5]), reason(r[6]), BreakerState.valueOf(r[7]),
                Long.parseLong(r[8]), Integer.parseInt(r[9]), Integer.parseInt(r[10]), "1".equals(r[11]),
                "1".equals(r[12]), "1".equals(r[13]), Integer.parseInt(r[14]), Integer.parseInt(r[15]),
                !"0".equals(r[16]));
    }

    private static PermitReason reason(String text) {
        return text.isEmpty() ? null : PermitReason.valueOf(text);
    }
}
