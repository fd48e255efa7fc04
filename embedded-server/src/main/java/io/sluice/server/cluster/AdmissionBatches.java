package io.sluice.server.cluster;

import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The admissions a node asks Redis for, sent as few calls as the load allows: one {@code client-admit.lua} call is
 * in Redis at a time, and the admissions asked meanwhile go together in the next one (up to {@link #MAX_BATCH}).
 * When requests are few, each goes alone at once, as before; under load one call carries many. A call's fixed
 * costs (a command to encode and parse, a script to enter, a read and a write on each side) were most of what
 * cluster mode added per request (docs/BENCHMARKS.md, issue 12).
 *
 * <p>The script judges a batch's requests one after the other, atomically, exactly as if each had been sent alone
 * in that order, so batching changes no verdict. The price is latency under load: an admission may wait for the
 * call ahead of it (one round trip) before its own is sent. A call that fails (the deadline, a dropped connection)
 * fails the admissions queued behind it too, at once: they have waited as long as it did, and the node is
 * deciding alone from then on.
 *
 * <p>A call's answers are handed out on Redis's I/O thread, once the next call has gone, and whoever waits on one
 * acts on it there without blocking (the lean path starts forwarding). Handing them to a request thread instead cost
 * a wake-up per call, about a tenth of a cluster node's CPU per request (docs/BENCHMARKS.md, issue 29); and the I/O
 * thread never holds Redis up: acting on an answer takes the node less time than judging a request takes Redis,
 * which works on the next call meanwhile.
 *
 * <p>The slots of the requests this node served go back in the same calls: a release waits in its lane and travels
 * with the next call, whose script gives the leases back before it judges the call's requests (a call of releases
 * alone goes when there is nothing else to send). So a client's next request never finds its last one's slot still
 * taken, and no timer thread wakes and sends a call of its own for releases: that timer, every 2 ms under load, cost
 * a cluster node a wake-up of two threads per batch (docs/BENCHMARKS.md, issue 29).
 *
 * <p>On a Redis Cluster each master has its own lane (its queue and its one call in Redis), as the link last read
 * the topology: a batch holds the admissions and releases of the slots one master serves, the lanes of different
 * masters are sent side by side, and a failed call fails only its own lane's waiting admissions. A call whose keys
 * share one slot declares them, as on one Redis; one whose keys span slots declares one of them, which routes it, and
 * carries the rest in its arguments (client-admit.lua), so its fixed cost is shared by a master's clients rather than
 * a slot's: clients rarely share a slot, and a lane per slot made most calls carry one request, which cost three
 * shards about three times one Redis's CPU per admitted request (docs/BENCHMARKS.md, issue 29). A request or release
 * whose slot has moved since is answered NOT_HERE with nothing done, and sent again alone, its keys declared, for
 * Redis Cluster to redirect. One Redis has a single lane, as before.
 */
final class AdmissionBatches {
    /** Requests per call at most, so one call stays short in Redis (which serves nothing else while it runs). */
    static final int MAX_BATCH = 64;
    /** Releases per call at most; more waiting go ahead in calls of their own, so one call stays short here too. */
    static final int MAX_RELEASES = 512;
    /** The numbers client-admit.lua answers for a request, and the three more for a crawler's. */
    private static final int ANSWERS = 4;
    private static final int CRAWLER_ANSWERS = 7;
    /** Past this many sets of limits remembered (policy edits make new ones), they are forgotten and made again. */
    private static final int MAX_LIMIT_SETS = 256;
    /** The weights most routes have, and a request's that is not a crawler's gap, as arguments made once. */
    private static final String[] WEIGHTS = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    private static final String NOT_A_CRAWLER = "-1";
    /** client-admit.lua's verdict for a request whose slot its master no longer serves: nothing was done. */
    private static final long NOT_HERE = -1;

    /**
     * The limits a request is judged by, in client-admit.lua's order: sent once per call for all its requests that
     * share them, since reading arguments cost Redis as much time as some of the rules (docs/BENCHMARKS.md, issue 29).
     *
     * @param routeWindowSeconds   0 when the request's route has no limits of its own
     * @param networkWindowSeconds 0 when the request asks nothing about its network's budget (the browser check's)
     * @param networkDecisive      a network over its budget ends the decision (client-admit.lua answers
     *                             NETWORK_BUDGET and judges nothing else)
     * @param passWindowSeconds    0 when the request is not on a pass, else the window of a pass's own stack
     */
    record Limits(int clientWindowSeconds, int clientMaxHits, int routeWindowSeconds, int routeMaxHits,
                  int addressWindowSeconds, int addressMaxHits, int maxConcurrent, int addressMaxConcurrent,
                  long leaseMillis, long allCrawlersMillis, int networkWindowSeconds, int networkMaxHits,
                  boolean networkDecisive, int passWindowSeconds, int passMaxHits) {

        /** Limits that ask nothing about a network. */
        Limits(int clientWindowSeconds, int clientMaxHits, int routeWindowSeconds, int routeMaxHits,
               int addressWindowSeconds, int addressMaxHits, int maxConcurrent, int addressMaxConcurrent,
               long leaseMillis, long allCrawlersMillis) {
            this(clientWindowSeconds, clientMaxHits, routeWindowSeconds, routeMaxHits, addressWindowSeconds,
                    addressMaxHits, maxConcurrent, addressMaxConcurrent, leaseMillis, allCrawlersMillis, 0, 0, false, 0,
                    0);
        }

        private String[] arguments() {
            return new String[] {Integer.toString(clientWindowSeconds), Integer.toString(clientMaxHits),
                Integer.toString(routeWindowSeconds), Integer.toString(routeMaxHits),
                Integer.toString(addressWindowSeconds), Integer.toString(addressMaxHits),
                Integer.toString(maxConcurrent), Integer.toString(addressMaxConcurrent), Long.toString(leaseMillis),
                Long.toString(allCrawlersMillis), Integer.toString(networkWindowSeconds),
                Integer.toString(networkMaxHits), networkDecisive ? "1" : "0", Integer.toString(passWindowSeconds),
                Integer.toString(passMaxHits)};
        }
    }

    /**
     * A set of limits and its arguments, made once ({@link #limitSet}): equal limits are one array, sent once per
     * call for all its requests.
     */
    record LimitSet(Limits limits, String[] arguments) {
    }

    /**
     * One request, and where its answer goes: its keys in client-admit.lua's order, its limits' arguments (one array
     * for equal limits), its weight, lease id and crawler's gap, and how many numbers its answer has.
     */
    private record Queued(String[] keys, String[] limits, String weight, String leaseId, String crawlerGap,
                          int answers, CompletableFuture<List<Object>> answer) {
    }

    private final LuaScript script;
    private final RedisLink link;
    private final AtomicLong calls;
    /** Where the releases of a call that failed go (to be retried at the next heartbeat). */
    private final Consumer<RedisLease> releaseFailed;
    /** Releases queued or in a call not answered yet (added to by request threads without contending). */
    private final LongAdder releasesUnanswered = new LongAdder();
    /** By master ({@link RedisLink#shardOf}), on a Redis Cluster; a master that left keeps its idle lane. */
    private final ConcurrentHashMap<Object, Lane> lanes = new ConcurrentHashMap<>();
    /** On one Redis, its single lane, found without a lookup per request; null on a Redis Cluster. */
    private final Lane onlyLane;
    /** Each set of limits as arguments, made once: equal limits are one array, sent once per call. */
    private final ConcurrentHashMap<Limits, LimitSet> limitArguments = new ConcurrentHashMap<>();

    /**
     * @param calls         counts every call sent (the store's commands)
     * @param releaseFailed takes each release whose call failed
     */
    AdmissionBatches(LuaScript script, RedisLink link, AtomicLong calls, Consumer<RedisLease> releaseFailed) {
        this.script = script;
        this.link = link;
        this.calls = calls;
        this.releaseFailed = releaseFailed;
        this.onlyLane = link.cluster() ? null : new Lane();
    }

    /**
     * One request's admission: its answers (client-admit.lua's {@link #ANSWERS}, a crawler's
     * {@link #CRAWLER_ANSWERS}), or the failure of its call. Never blocks.
     * Its keys, in client-admit.lua's order, share one slot (the store's hash tags).
     *
     * @param crawlerGapMillis this crawler's gap, or -1 for a request that is not a crawler's
     */
    CompletableFuture<List<Object>> admit(String[] keys, LimitSet limits, int weight, String leaseId,
                                          long crawlerGapMillis) {
        Limits judged = limits.limits();
        int expected = 4 + (judged.routeWindowSeconds() > 0 ? 1 : 0) + (crawlerGapMillis >= 0 ? 2 : 0)
                + (judged.networkWindowSeconds() > 0 ? 1 : 0) + (judged.passWindowSeconds() > 0 ? 1 : 0);
        if (keys.length != expected) {
            throw new IllegalArgumentException("client-admit.lua takes " + expected + " keys for this request, not "
                    + keys.length);
        }
        boolean crawler = crawlerGapMillis >= 0;
        String weightArgument = weight >= 0 && weight < WEIGHTS.length ? WEIGHTS[weight] : Integer.toString(weight);
        Queued queued = new Queued(keys, limits.arguments(), weightArgument, leaseId,
                crawler ? Long.toString(crawlerGapMillis) : NOT_A_CRAWLER, crawler ? CRAWLER_ANSWERS : ANSWERS,
                new CompletableFuture<>());
        Lane lane = laneOf(keys[0]);
        lane.queue.add(queued);
        lane.sendIfIdle();
        return queued.answer();
    }

    /**
     * Gives a served request's slots back with the next call of its lane (its client's leases' slot, which its
     * client's admissions share), or at once in a call of its own if none is in Redis. Never blocks.
     */
    void release(RedisLease lease) {
        releasesUnanswered.increment();
        Lane lane = laneOf(lease.clientLeases());
        lane.releases.add(lease);
        lane.sendIfIdle();
    }

    /**
     * {@code limits} as a set sent with the calls: the same array for equal limits (made at most once per set, and
     * again after {@link #MAX_LIMIT_SETS} sets, which only policy edits make).
     */
    LimitSet limitSet(Limits limits) {
        if (limitArguments.size() > MAX_LIMIT_SETS) {
            limitArguments.clear();
        }
        return limitArguments.computeIfAbsent(limits, made -> new LimitSet(made, made.arguments()));
    }

    /** For tests: a release is waiting or in a call not answered yet (once false, every release so far is done). */
    boolean releasesPending() {
        return releasesUnanswered.sum() > 0;
    }

    private Lane laneOf(String key) {
        return onlyLane != null ? onlyLane : lanes.computeIfAbsent(link.shardOf(key), shard -> new Lane());
    }

    /** The admissions of one master (or of the one Redis): what waits, and whether a call of theirs is in Redis. */
    private final class Lane {
        private final Queue<Queued> queue = new ConcurrentLinkedQueue<>();
        private final Queue<RedisLease> releases = new ConcurrentLinkedQueue<>();
        /** A call is in Redis: what is asked now waits for its answer, then goes in the next. */
        private final AtomicBoolean sending = new AtomicBoolean();

        private void sendIfIdle() {
            // A request queued just after a call was answered finds sending false again: it is sent by its own
            // caller.
            while ((!queue.isEmpty() || !releases.isEmpty()) && sending.compareAndSet(false, true)) {
                // the requests first, then every release queued until now: a release queued before a request of its
                // client (its previous request ended before this one came) is given back ahead of it
                List<Queued> batch = take(queue, MAX_BATCH);
                List<RedisLease> released = take(releases, Integer.MAX_VALUE);
                if (!batch.isEmpty() || !released.isEmpty()) {
                    int ahead = released.size() - MAX_RELEASES;
                    for (int from = 0; from < ahead; from += MAX_RELEASES) {
                        send(List.of(), released.subList(from, Math.min(ahead, from + MAX_RELEASES)), false);
                    }
                    send(batch, released.subList(Math.max(0, ahead), released.size()), true);
                    return;
                }
                sending.set(false);
            }
        }


        /**
         * One call: {@code released} given back, then {@code batch} judged. {@code last} is the call the lane waits
         * for before it sends again; the calls of releases sent ahead of it, in order on the same connection, are
         * not waited for.
         */
        private void send(List<Queued> batch, List<RedisLease> released, boolean last) {
            call(batch, released).whenComplete((answers, failure) -> {
                if (last) {
                    answered(batch, released, answers, failure);
                } else {
                    releasesAnswered(List.of(), released, answers, failure);
                }
            });
        }

        private void answered(List<Queued> batch, List<RedisLease> released, List<Object> answers,
                              Throwable failure) {
            List<Queued> behind = List.of();
            if (failure != null) {
                behind = take(queue, Integer.MAX_VALUE);
                // Redis is away: the releases queued behind wait for the heartbeat's retry instead
                releasesAnswered(List.of(), take(releases, Integer.MAX_VALUE), null, failure);
            }
            // The next call goes before this one's answers are handed out: Redis works on it meanwhile.
            sending.set(false);
            sendIfIdle();
            releasesAnswered(batch, released, answers, failure);
            handOut(batch, answers, failure, behind);
        }
    }

    /**
     * One call of client-admit.lua: {@code released} given back, then {@code batch} judged; on a Redis Cluster, their
     * keys may span the slots of one master ({@link LuaScript#runOnMaster}).
     */
    private CompletableFuture<List<Object>> call(List<Queued> batch, List<RedisLease> released) {
        List<String> keys = new ArrayList<>(released.size() * 2 + batch.size() * 5);
        for (RedisLease lease : released) {
            keys.add(lease.clientLeases());
            keys.add(lease.addressLeases());
        }
        Map<String[], Integer> numbers = new IdentityHashMap<>(4);
        List<String[]> sets = new ArrayList<>(4);
        for (Queued queued : batch) {
            if (numbers.putIfAbsent(queued.limits(), sets.size() + 1) == null) {
                sets.add(queued.limits());
            }
            Collections.addAll(keys, queued.keys());
        }
        List<String> args = new ArrayList<>(2 + released.size() + sets.size() * 15 + batch.size() * 4);
        args.add(Integer.toString(released.size()));
        released.forEach(lease -> args.add(lease.id()));
        args.add(Integer.toString(sets.size()));
        sets.forEach(set -> Collections.addAll(args, set));
        for (Queued queued : batch) {
            Collections.addAll(args, queued.weight(), Integer.toString(numbers.get(queued.limits())),
                    queued.leaseId(), queued.crawlerGap());
        }
        calls.incrementAndGet();
        try {
            return script.runOnMaster(link, ScriptOutputType.MULTI, keys, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A request whose slot moved from the master its call went to, sent again alone, its keys declared. */
    private void admitAlone(Queued queued) {
        call(List.of(queued), List.of()).whenComplete((answers, failure) ->
                handOut(List.of(queued), answers, failure, List.of()));
    }

    /** A release whose slot moved from the master its call went to, sent again alone, its keys declared. */
    private void releaseAlone(RedisLease lease) {
        call(List.of(), List.of(lease)).whenComplete((answers, failure) ->
                releasesAnswered(List.of(), List.of(lease), answers, failure));
    }

    /** Up to {@code most} of what {@code from} holds, oldest first. */
    private static <T> List<T> take(Queue<T> from, int most) {
        List<T> taken = new ArrayList<>(Math.min(most, 16));
        T next;
        while (taken.size() < most && (next = from.poll()) != null) {
            taken.add(next);
        }
        return taken;
    }

    /**
     * The releases of a call answered: those whose slot moved (their indexes follow the answers of the call's
     * {@code batch}) sent again; the others done, or, when the call failed, retried at a heartbeat.
     */
    private void releasesAnswered(List<Queued> batch, List<RedisLease> released, List<Object> answers,
                                  Throwable failure) {
        List<RedisLease> done = released;
        int expected = expectedAnswers(batch);
        if (failure == null && answers != null && answers.size() > expected && !released.isEmpty()) {
            done = new ArrayList<>(released);
            for (Object index : answers.subList(expected, answers.size())) {
                RedisLease moved = released.get((int) (long) (Long) index - 1);
                done.remove(moved);
                releaseAlone(moved);
            }
        }
        if (failure != null) {
            done.forEach(releaseFailed);
        }
        releasesUnanswered.add(-done.size());
    }

    private static int expectedAnswers(List<Queued> batch) {
        int expected = 0;
        for (Queued queued : batch) {
            expected += queued.answers();
        }
        return expected;
    }

    private void handOut(List<Queued> batch, List<Object> answers, Throwable failed, List<Queued> behind) {
        Throwable failure = failed;
        int expected = expectedAnswers(batch);
        if (failure == null && (answers == null || answers.size() < expected)) {
            failure = new IllegalStateException("client-admit.lua answered " + (answers == null ? 0 : answers.size())
                    + " values for " + batch.size() + " requests, not " + expected);
        }
        int from = 0;
        for (Queued queued : batch) {
            if (failure != null) {
                queued.answer().completeExceptionally(failure);
            } else {
                List<Object> answer = answers.subList(from, from + queued.answers());
                from += queued.answers();
                if (answer.get(0) instanceof Long verdict && verdict == NOT_HERE) {
                    admitAlone(queued);
                } else {
                    queued.answer().complete(answer);
                }
            }
        }
        for (Queued queued : behind) {
            queued.answer().completeExceptionally(failure);
        }
    }
}
