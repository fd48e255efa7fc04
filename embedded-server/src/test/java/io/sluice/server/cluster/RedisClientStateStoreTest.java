package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClientStoreSpecification.CLASSIFIER;
import static io.sluice.server.cluster.ClientStoreSpecification.CURL;
import static io.sluice.server.cluster.ClientStoreSpecification.PYTHON;
import static io.sluice.server.cluster.ClientStoreSpecification.WGET;
import static io.sluice.server.cluster.ClientStoreSpecification.admitted;
import static io.sluice.server.cluster.ClientStoreSpecification.answered;
import static io.sluice.server.cluster.ClientStoreSpecification.refused;
import static io.sluice.server.cluster.ClientStoreSpecification.served;
import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.TestRedis;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only a shared store has to get right: how many round trips a request costs, leases of a node that dies
 * or of a long request, and Redis killed, hung ({@code SIGSTOP}), restarted empty (its scripts gone) or its
 * connections dropped: the nodes keep deciding within the deadline, alone and saying so, and come back. Each test
 * has a redis-server of its own.
 */
@RealParts
class RedisClientStateStoreTest {
    /**
     * A decision needing Redis is made within the deadline (1 s here) and the timer's tick; the bound is looser only
     * because this machine is shared: what it rules out is waiting for Redis (a hung one would hold a request for the
     * OS's TCP timeout).
     */
    private static final Duration DECISION_BOUND = ClusterFixture.PATIENT.deadline().multipliedBy(5).dividedBy(2);

    private TestRedis redis;
    private ClusterFixture cluster;

    /** A node of the cluster: its engine, its store, its membership. */
    private record Member(ThrottleEngine engine, RedisClientStateStore store, ClusterNode node) {
    }

    @BeforeEach
    void start() {
        redis = TestRedis.start();
        cluster = new ClusterFixture(redis);
    }

    @AfterEach
    void stop() {
        cluster.close();
        redis.close();
    }

    private Member member(String name, Policy policy, Duration lease) {
        return member(name, policy, lease, ClusterFixture.PATIENT);
    }

    private Member member(String name, Policy policy, Duration lease, ClusterSettings settings) {
        RedisClientStateStore store = new RedisClientStateStore(settings, lease);
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), policy, CLASSIFIER,
                null, store);
        ClusterNode node = cluster.node(name, new EngineLoad(engine), settings);
        node.shareClientState(store);
        engine.reportClusterStatus(node::status);
        awaitState(node, ClusterState.HEALTHY);
        return new Member(engine, store, node);
    }

    private Member member(String name, Policy policy) {
        return member(name, policy, Duration.ofSeconds(35));
    }

    /** The decision, awaited if pending, and whether it had to ask Redis. */
    private record Timed(Decision decision, boolean asked, Duration took) {
    }

    private static Timed decide(Member member, String ip) {
        return decide(member, ip, CURL);
    }

    private static Timed decide(Member member, String ip, String agent) {
        long askedBefore = member.store().admissionsAsked();
        long start = System.nanoTime();
        Decision decided = answered(member.engine().decide(Request.direct(ip, agent)));
        return new Timed(decided, member.store().admissionsAsked() > askedBefore,
                Duration.ofNanos(System.nanoTime() - start));
    }

    private long hitsInRedis(String ip) throws Exception {
        return ClusterFixture.hitsIn(redis, ip);
    }

    @Test
    void aRequestCostsOneCallAndAClientKnownToBeRefusedNoneTillItsTimeWithItsHitsStillCounted() throws Exception {
        Member a = member("a", Policy.defaults());
        Member b = member("b", Policy.defaults());
        long before = a.store().commandsSent();
        // node b's start may have kept a loaded machine from answering a's heartbeat in time: a asks Redis again first
        await(() -> a.store().available(), "node a to be healthy");

        Timed first = decide(a, "192.0.2.1");
        assertThat(first.asked()).isTrue();
        assertThat(a.store().commandsSent() - before).isEqualTo(1);
        served(first.decision()); // and one to give the slot back, at once since no call is in Redis
        await(() -> a.store().commandsSent() - before == 2, "the release's call");
        for (int i = 0; i < 9; i++) {
            served(decide(a, "192.0.2.1").decision());
            // a release that found no call in Redis goes alone; one that found the release before it still in Redis
            // waits and goes with the next request's call: answered, the count of calls below is exact
            await(() -> !a.store().releasesPending(), "the release to be answered");
        }
        Timed eleventh = decide(a, "192.0.2.1");
        refused(eleventh.decision(), Reason.HIT_STACK);
        assertThat(eleventh.asked()).isTrue();
        long afterRefusal = a.store().commandsSent();

        for (int i = 0; i < 5; i++) {
            Timed known = decide(a, "192.0.2.1");
            refused(known.decision(), Reason.HIT_STACK);
            assertThat(known.asked()).as("refused without asking Redis").isFalse();
        }
        assertThat(a.store().commandsSent()).isLessThanOrEqualTo(afterRefusal + 1); // at most the heartbeat's flush
        await(() -> {
            try {
                return hitsInRedis("192.0.2.1") == 16;
            } catch (Exception e) {
                return false;
            }
        }, "the refused hits to reach Redis");
        assertThat(decide(b, "192.0.2.1").asked()).as("b knew nothing of it").isTrue();
    }

    /**
     * The hits in the last minute of {@code ip}'s own stack, or -1 while its key names its only client instead
     * (address-stacks.lua), or 0 for none.
     */
    private long addressHitsInRedis(String ip) throws Exception {
        return Long.parseLong(redis.command("EVAL", ClusterFixture.MINUTE_OF_HITS
                + "local held = redis.call('GET', KEYS[1]) if not held then return 0 end "
                + "if #held ~= 512 then return -1 end return minute(held)", "1",
                ClusterFixture.SETTINGS.keyPrefix() + "{" + ip + "}:m"));
    }

    private long addressHitsOrFail(String ip) {
        try {
            return addressHitsInRedis(ip);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void anAddresssOnlyClientAnswersForItUntilAnotherUserAgentsHitsCountedByANodeReachRedis() throws Exception {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(32, 64, 15, 3, 32));
        Member a = member("a", policy);
        Member b = member("b", policy);
        await(() -> a.store().available(), "node a to be healthy");
        for (int i = 0; i < 3; i++) {
            served(decide(a, "192.0.2.1", CURL).decision());
        }
        refused(decide(a, "192.0.2.1", CURL).decision(), Reason.ADDRESS_HIT_STACK);
        assertThat(addressHitsInRedis("192.0.2.1")).as("no stack of the address's own while curl is alone")
                .isEqualTo(-1);

        // node a knows the address is full: wget is refused without asking Redis, its hits counted for the flush
        for (int i = 0; i < 2; i++) {
            Timed wget = decide(a, "192.0.2.1", WGET);
            refused(wget.decision(), Reason.ADDRESS_HIT_STACK);
            assertThat(wget.asked()).isFalse();
        }

        // the flush folds curl's four hits into the address's own stack and adds wget's two
        await(() -> addressHitsOrFail("192.0.2.1") == 6, "the address's stack with both user agents' hits");
        Timed python = decide(b, "192.0.2.1", PYTHON);
        assertThat(python.asked()).isTrue();
        refused(python.decision(), Reason.ADDRESS_HIT_STACK);
        assertThat(addressHitsInRedis("192.0.2.1")).isEqualTo(7);
    }

    @Test
    void aLongRequestOfAnAddresssOnlyClientIsStillCountedByANewcomerOnceItsClientsMarkerIsGone() throws Exception {
        Policy policy = ClientStoreSpecification.generous().withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 1));
        Member a = member("a", policy, Duration.ofSeconds(1));
        Member b = member("b", policy, Duration.ofSeconds(1));
        Decision.Admit running = admitted(decide(a, "192.0.2.1", CURL).decision());
        String prefix = ClusterFixture.SETTINGS.keyPrefix() + "{192.0.2.1}:";
        assertThat(addressHitsInRedis("192.0.2.1")).as("curl alone answers for the address").isEqualTo(-1);

        // renewed (it runs longer than a third of the lease time), the lease is put in the address's own set
        await(() -> "1".equals(command("EXISTS", prefix + "l")), "the renewed lease in the address's set");
        // a minute with no other request of curl's: its marker expires
        command("DEL", prefix + "m");

        refused(decide(b, "192.0.2.1", WGET).decision(), Reason.ADDRESS_CONCURRENCY);
        running.admission().complete(200, 1_000);
        // one script gives it back from both sets: once curl's set holds only its placeholder, the address's is free
        await(() -> "1".equals(command("EVAL", "return redis.call('ZCARD', redis.call('KEYS', ARGV[1])[1])", "0",
                prefix + "l:*")), "the lease given back");
        admitted(decide(b, "192.0.2.1", WGET).decision());
    }

    @Test
    void anOnlyClientReadsItsMarkerOnlyOnceItIsDueToBeSetAgainAndSetsItThen() throws Exception {
        Member a = member("a", Policy.defaults());
        String prefix = ClusterFixture.SETTINGS.keyPrefix() + "{192.0.2.3}:";
        served(decide(a, "192.0.2.3", CURL).decision());
        String stack = command("EVAL", "return redis.call('KEYS', ARGV[1])[1]", "0", prefix + "m:*");
        long setAt = markerSecond(prefix + "m");

        // The marker as set eleven seconds ago (it is set again every ten while its client comes), and curl's
        // stack remembering so: the next request must read the marker, find it due, and set it again
        command("EVAL", "local marker = redis.call('GET', KEYS[1]) "
                + "local aged = tonumber(string.sub(marker, 2, 11)) - 11 "
                + "redis.call('SET', KEYS[1], '=' .. string.format('%010d', aged) .. string.sub(marker, 12), 'EX', 60) "
                + "return redis.call('SETRANGE', KEYS[2], 24, struct.pack('<I4', aged))", "2", prefix + "m", stack);
        served(decide(a, "192.0.2.3", CURL).decision());

        assertThat(markerSecond(prefix + "m")).as("the marker set again").isGreaterThanOrEqualTo(setAt);
        assertThat(Long.parseLong(command("PTTL", prefix + "m"))).as("with a new expiry").isGreaterThan(60_000);
        assertThat(addressHitsInRedis("192.0.2.3")).as("curl still answers for its address").isEqualTo(-1);
    }

    /** The second an address's marker was set (address-stacks.lua: '=', then ten digits). */
    private long markerSecond(String addressKey) {
        return Long.parseLong(command("GET", addressKey).substring(1, 11));
    }

    @Test
    void aFloodOfRefusedAddressesIsFlushedInCallsOfAtMost500StacksSoNoCallHoldsRedisLong() throws Exception {
        Member a = member("a", ClientStoreSpecification.hitStack(ClientStoreSpecification.generous(), 15, 1));
        List<String> flood = new ArrayList<>();
        for (int i = 0; i < 1_200; i++) {
            flood.add("10.9." + (i / 250) + "." + (i % 250 + 1));
        }
        for (String ip : flood) {
            served(decide(a, ip).decision());
            refused(decide(a, ip).decision(), Reason.HIT_STACK); // now known refused
        }
        await(() -> !a.store().releasesPending() && a.store().counts().get("unflushed") == 0, "the releases sent");
        redis.command("CONFIG", "SET", "slowlog-log-slower-than", "0");
        redis.command("CONFIG", "SET", "slowlog-max-len", "10000");
        redis.command("SLOWLOG", "RESET");

        for (String ip : flood) {
            Timed known = decide(a, ip);
            refused(known.decision(), Reason.HIT_STACK);
            assertThat(known.asked()).isFalse(); // counted, for the flush
        }
        await(() -> {
            try {
                return hitsInRedis(flood.get(0)) == 3 && hitsInRedis(flood.get(flood.size() - 1)) == 3;
            } catch (Exception e) {
                return false;
            }
        }, "the flood's hits flushed");
        await(() -> a.store().counts().get("unflushed") == 0, "every hit flushed");

        List<Integer> stacksPerCall = flushCalls();
        assertThat(stacksPerCall).as("each flush call's stacks").allMatch(stacks -> stacks <= 500);
        assertThat(stacksPerCall.stream().mapToInt(Integer::intValue).sum()).as("every client's stack, at least")
                .isGreaterThanOrEqualTo(flood.size());
    }

    /** The number of keys of each call of a script on stacks since the slow log was reset (every call is logged). */
    private List<Integer> flushCalls() {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<Integer> stacks = new ArrayList<>();
            for (Object entry : connection.sync().slowlogGet(10_000)) {
                List<?> words = (List<?>) ((List<?>) entry).get(3);
                String command = words.get(0).toString().toUpperCase(Locale.ROOT);
                if ((command.equals("FCALL") || command.equals("EVALSHA")) && words.size() > 3
                        && words.get(3).toString().matches(".*\\{10\\.9\\.[0-9.]+\\}:m.*")) {
                    stacks.add(Integer.parseInt(words.get(2).toString()));
                }
            }
            return stacks;
        } finally {
            client.shutdown();
        }
    }

    @Test
    void everyKeyTheClientsLeaveInRedisExpiresSoAFloodOfAddressesCannotFillIt() throws Exception {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(32, 64, 15, 3, 32));
        Member a = member("a", policy, Duration.ofSeconds(1));
        Member b = member("b", policy, Duration.ofSeconds(1));
        Decision.Admit running = admitted(decide(a, "192.0.2.7", CURL).decision()); // renewed while it runs
        for (int i = 0; i < 20; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2." + (10 + i), CURL).decision()); // alone at their addresses
        }
        for (String agent : List.of(CURL, WGET, PYTHON)) { // one address folded by a second and third user agent
            served(decide(a, "192.0.2.1", agent).decision());
        }
        refused(decide(a, "192.0.2.1", CURL).decision(), Reason.ADDRESS_HIT_STACK);
        refused(decide(a, "192.0.2.1", WGET).decision(), Reason.ADDRESS_HIT_STACK); // counted, flushed later
        await(() -> a.store().counts().get("unflushed") == 0 && !a.store().releasesPending()
                && "1".equals(command("EXISTS", ClusterFixture.SETTINGS.keyPrefix() + "{192.0.2.7}:l")),
                "the flush, the releases and the renewal");

        String[] found = command("EVAL", "local keys, without = redis.call('KEYS', ARGV[1] .. '{1*'), {} "
                + "for _, k in ipairs(keys) do if redis.call('PTTL', k) < 0 then without[#without + 1] = k end end "
                + "return #keys .. ' ' .. table.concat(without, ' ')", "0", ClusterFixture.SETTINGS.keyPrefix())
                .trim().split(" ", 2);
        // 21 lone clients (stack, lease set, marker), one folded address (its stack and lease set, three clients')
        assertThat(Integer.parseInt(found[0])).as("keys looked at").isGreaterThanOrEqualTo(21 * 3 + 2 + 3 * 2);
        assertThat(found.length == 1 ? "" : found[1]).as("keys with no expiry").isEmpty();
        running.admission().complete(200, 1_000);
    }

    @Test
    void aClientsSetOfLeasesOutlivesItsNewestLeaseThoughItsExpiryIsNotPushedOnEveryLease() {
        // Leases of 1 s, one taken every quarter second of Redis's clock for three leases' time: the set's first
        // expiry (two leases' time) passes, so a lease taken when less than a lease's time is left must push it on.
        // A lease outliving its set would stop counting while its request runs on a node that died.
        Member a = member("a", ClientStoreSpecification.generous(), Duration.ofSeconds(1));
        String leases = ClusterFixture.SETTINGS.keyPrefix() + "{192.0.2.7}:l:*";
        long start = redisMillis();
        int taken = 0;
        for (long next = start; next < start + 3_000; next += 250) {
            long due = next;
            await(() -> redisMillis() >= due, "Redis's clock at the next quarter second");
            Decision.Admit running = admitted(decide(a, "192.0.2.7").decision());
            taken++;
            // at once, before the node renews the lease (a third of its time later) and pushes the set on itself
            long spare = Long.parseLong(command("EVAL", "local key = redis.call('KEYS', ARGV[1])[1] " + NOW_MILLIS
                    + "local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES') "
                    + "return redis.call('PTTL', key) - (tonumber(newest[2]) - now)", "0", leases));
            assertThat(spare).as("the set's time left less its newest lease's, lease %d", taken)
                    .isGreaterThanOrEqualTo(0);
            running.admission().complete(200, 1);
            await(() -> !a.store().releasesPending(), "the release to be sent");
        }
        assertThat(taken).isGreaterThanOrEqualTo(12);
    }

    /** Lua: {@code now}, Redis's clock in ms. */
    private static final String NOW_MILLIS = "local t = redis.call('TIME') "
            + "local now = t[1] * 1000 + math.floor(t[2] / 1000) ";

    /** Redis's clock, ms. */
    private long redisMillis() {
        return Long.parseLong(command("EVAL", NOW_MILLIS + "return now", "0"));
    }

    private String command(String... words) {
        try {
            return redis.command(words);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aClientsRequestsInARowAreNeverRefusedForConcurrencyWhileThisNodesReleasesAreOnTheirWay() {
        // Two at a time: when releases waited 2 ms for a batch of their own, the third request of a row sent within
        // it found two slots still held in Redis and was refused CLIENT_CONCURRENCY.
        Member a = member("a", ClientStoreSpecification.generous().withPerClient(new Policy.PerClient(2)));
        for (int i = 0; i < 30; i++) {
            served(decide(a, "192.0.2.7").decision());
        }
    }

    @Test
    void aPendingDecisionCompletesOnRedissIoThreadWithNoHandOffSoTheFrontActsThere() throws Exception {
        Member a = member("a", Policy.defaults());
        served(decide(a, "192.0.2.8").decision()); // the link and the script ready
        CompletableFuture<String> actedOn;
        // Redis answers only once the test has attached its step, so the step cannot run on the test's own thread.
        redis.hang();
        try {
            Decision decision = a.engine().decide(Request.direct("192.0.2.9", CURL));
            assertThat(decision).isInstanceOf(Decision.Pending.class);
            actedOn = ((Decision.Pending) decision).decision().toCompletableFuture()
                    .thenApply(made -> Thread.currentThread().getName());
        } finally {
            redis.resume();
        }
        // Lettuce's event loop (the one that reads Redis's replies), not its timer (a deadline missed)
        assertThat(actedOn.get(30, TimeUnit.SECONDS)).startsWith("lettuce-").contains("EventLoop");
    }

    private static ClusterSettings unhurried() {
        return ClusterFixture.UNHURRIED;
    }

    @Test
    void aReleaseMadeWhileACallIsInRedisGoesWithTheNextCallAndFreesItsSlotBeforeThatCallsRequestsAreJudged() {
        Member a = member("a", ClientStoreSpecification.generous().withPerClient(new Policy.PerClient(1)),
                Duration.ofSeconds(35), unhurried());
        Decision.Admit first = admitted(decide(a, "192.0.2.7").decision());
        long before = a.store().commandsSent();

        Decision other;
        Decision next;
        redis.hang();
        try {
            other = a.engine().decide(Request.direct("192.0.2.8", CURL)); // a call in Redis
            first.admission().complete(200, 1_000); // its release waits for that call
            next = a.engine().decide(Request.direct("192.0.2.7", CURL)); // and so does its client's next request
        } finally {
            redis.resume();
        }

        admitted(answered(next)).admission().complete(200, 1_000);
        served(answered(other));
        await(() -> !a.store().releasesPending(), "the releases to be answered");
        assertThat(a.store().commandsSent() - before)
                .as("the call in Redis; the release with the next request; the last two releases, alone or together")
                .isBetween(3L, 4L);
    }

    @Test
    void aReleaseWhoseCallFailsIsRetriedAtAHeartbeatOnceRedisAnswersAgain() {
        Member a = member("a", Policy.defaults());
        Decision.Admit first = admitted(decide(a, "192.0.2.9").decision());
        redis.hang();
        try {
            first.admission().complete(200, 1_000); // its release goes alone, at once, and misses its deadline
            await(() -> a.store().counts().get("retrying") == 1, "the release to wait for a retry");
        } finally {
            redis.resume();
        }
        await(() -> a.store().counts().get("retrying") == 0, "the release to be retried");
        await(() -> !a.store().releasesPending(), "nothing else waiting");
        // the store's own heartbeat says it answers again, on its own time: not necessarily before the retry's end
        await(() -> a.store().available(), "the store to count as available again");
    }

    @Test
    void requestsAskedWhileACallIsInRedisGoTogetherInTheNextAndAreJudgedOneAfterAnother() {
        ClusterSettings unhurried = unhurried();
        Policy tenHits = ClientStoreSpecification.hitStack(ClientStoreSpecification.generous(), 15, 10)
                .withPerClient(new Policy.PerClient(32));
        Member a = member("a", tenHits, Duration.ofSeconds(35), unhurried);
        served(decide(a, "192.0.2.9").decision()); // the link and the script ready
        await(() -> !a.store().releasesPending(), "the release to be sent");
        long before = a.store().commandsSent();

        List<Decision> asked = new ArrayList<>();
        redis.hang();
        try {
            for (int i = 0; i < 12; i++) {
                asked.add(a.engine().decide(Request.direct("192.0.2.1", CURL)));
            }
        } finally {
            redis.resume();
        }
        List<Decision> decided = asked.stream().map(ClientStoreSpecification::answered).toList();

        assertThat(a.store().commandsSent() - before).as("the first alone, the eleven asked behind it in one call")
                .isEqualTo(2);
        for (int i = 0; i < 10; i++) {
            admitted(decided.get(i));
        }
        refused(decided.get(10), Reason.HIT_STACK);
        refused(decided.get(11), Reason.HIT_STACK);
        assertThat(admitted(decided.get(9)).rateLimit().remaining()).isZero();
    }

    @Test
    void aCallCarryingCrawlersAndOtherClientsGivesEachItsOwnAnswerAndACrawlersTurnComesBackWhole() {
        // a crawler's answer is longer than another request's (its turn's times, to give it back): one call with
        // both must hand each request its own, and the crawler's times must be the ones Redis recorded
        Policy oneHitOnePlace = ClientStoreSpecification.hitStack(Policy.defaults(), 15, 1)
                .withLoad(new Policy.Load(1, 0, 500));
        Member a = member("a", oneHitOnePlace, Duration.ofSeconds(35), unhurried());
        Decision.Admit browser = admitted(decide(a, "192.0.2.7").decision()); // the upstream's one place
        refused(decide(a, "192.0.2.8").decision(), Reason.LOAD); // passed Redis: its one hit is spent

        List<Decision> asked = new ArrayList<>();
        redis.hang();
        try {
            asked.add(a.engine().decide(Request.direct("192.0.2.9", CURL))); // a call in Redis; the rest wait
            asked.add(a.engine().decide(Request.direct("66.249.66.1", ClientStoreSpecification.GOOGLEBOT)));
            asked.add(a.engine().decide(Request.direct("192.0.2.8", CURL)));
            asked.add(a.engine().decide(Request.direct("157.55.39.1", ClientStoreSpecification.BINGBOT)));
            asked.add(a.engine().decide(Request.direct("192.0.2.10", CURL)));
        } finally {
            redis.resume();
        }
        List<Decision> decided = asked.stream().map(ClientStoreSpecification::answered).toList();

        refused(decided.get(0), Reason.LOAD);
        refused(decided.get(1), Reason.LOAD); // passed Redis, so it took the crawlers' turns, and gives them back
        refused(decided.get(2), Reason.HIT_STACK);
        refused(decided.get(3), Reason.CRAWLERS_BUSY); // Googlebot's turn, taken just before in the same call
        refused(decided.get(4), Reason.LOAD);
        browser.admission().complete(200, 1_000);
        await(() -> !a.store().releasesPending(), "the releases to be answered");
        await(() -> "0".equals(command("EXISTS", ClusterFixture.PATIENT.keyPrefix() + "{crawlers}:any")),
                "Googlebot's turn to go back");
        // on another node: this one remembers Bingbot's refusal, answered after Googlebot gave its turn back
        Member b = member("b", oneHitOnePlace);
        served(decide(b, "66.249.66.2", ClientStoreSpecification.GOOGLEBOT).decision());
    }

    @Test
    void aHitStackCountsNoSecondOlderThanAMinuteThoughItsSlotsStillHoldThem() throws Exception {
        Member a = member("a", Policy.defaults());
        served(decide(a, "192.0.2.1").decision());
        await(() -> !a.store().releasesPending(), "the release to be sent");
        String key = redis.command("EVAL", "return redis.call('KEYS', ARGV[1])[1]", "0",
                ClusterFixture.SETTINGS.keyPrefix() + "{192.0.2.1}:m:192.0.2.1:*");
        long longAgo = Long.parseLong(redis.command("EVAL", "return redis.call('TIME')[1]", "0")) - 1_000;
        // The client's stack as a node wrote it some twenty minutes ago: 5 hits in every second of the minute
        // before, its header's window of 15 s full (75 hits from 14 s before then)
        redis.command("EVAL", "local last = tonumber(ARGV[1]) local fields = {last, 5, 15, 75, last - 14, last, 0, 0} "
                + "for j = 0, 59 do fields[9 + 2 * j] = last - (last - j) % 60 fields[10 + 2 * j] = 5 end "
                + "return redis.call('SET', KEYS[1], struct.pack('<' .. string.rep('I4', 128), unpack(fields)))",
                "1", key, Long.toString(longAgo));

        Decision.Admit next = admitted(decide(a, "192.0.2.1").decision());

        assertThat(next.rateLimit().remaining()).as("only this hit is in the window").isEqualTo(9);
        assertThat(hitsInRedis("192.0.2.1")).as("the old slots count nothing, this second's does").isEqualTo(1);
        next.admission().complete(200, 1_000);
    }

    @Test
    void aCallThatMissesItsDeadlineFailsTheRequestsQueuedBehindItAtOnce() {
        Member a = member("a", Policy.defaults());
        served(decide(a, "192.0.2.9").decision());
        await(() -> !a.store().releasesPending(), "the release to be sent");
        long before = a.store().commandsSent();
        List<Decision> asked = new ArrayList<>();
        long start = System.nanoTime();
        redis.hang();
        try {
            for (int i = 0; i < 5; i++) {
                asked.add(a.engine().decide(Request.direct("192.0.2." + (i + 1), CURL)));
            }
            List<Decision> decided = asked.stream().map(ClientStoreSpecification::answered).toList();
            // every one decided alone when the first call missed its deadline; the four behind it were never sent
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(DECISION_BOUND);
            assertThat(a.store().commandsSent() - before).isEqualTo(1);
            decided.forEach(ClientStoreSpecification::served);
        } finally {
            redis.resume();
        }
        awaitState(a.node(), ClusterState.HEALTHY);
    }

    @Test
    void aNodeKilledWithRequestsInFlightHoldsTheClientsSlotsOnlyUntilItsLeasesExpire() {
        Policy policy = ClientStoreSpecification.generous().withPerClient(new Policy.PerClient(2));
        Member a = member("a", policy, Duration.ofSeconds(1));
        Member b = member("b", policy, Duration.ofSeconds(1));
        admitted(decide(a, "192.0.2.1").decision());
        admitted(decide(a, "192.0.2.1").decision());

        cluster.stop(a.node()); // its requests never complete, nor does it renew their leases
        long killed = System.nanoTime();
        refused(decide(b, "192.0.2.1").decision(), Reason.CLIENT_CONCURRENCY);

        await(() -> decide(b, "192.0.2.1").decision() instanceof Decision.Admit, "the leases to expire");
        assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aLongRequestKeepsItsSlotByRenewingItsLease() throws Exception {
        Policy policy = ClientStoreSpecification.generous().withPerClient(new Policy.PerClient(1));
        Member a = member("a", policy, Duration.ofSeconds(1));
        Member b = member("b", policy, Duration.ofSeconds(1));
        Decision.Admit running = admitted(decide(a, "192.0.2.1").decision());

        Thread.sleep(2_500); // two and a half lease times

        refused(decide(b, "192.0.2.1").decision(), Reason.CLIENT_CONCURRENCY);
        running.admission().complete(200, 1_000);
        await(() -> decide(b, "192.0.2.1").decision() instanceof Decision.Admit, "the slot given back");
    }

    @Test
    void redisKilledTheNodesDecideAloneAtOnceWithLimitsDividedAndComeBackWithoutReplayingHits() {
        Member a = member("a", Policy.defaults());
        member("b", Policy.defaults());
        await(() -> a.node().status().nodes() == 2, "a to see b");

        redis.kill();
        Timed first = decide(a, "192.0.2.1");
        assertThat(first.took()).isLessThan(DECISION_BOUND);
        served(first.decision());
        awaitState(a.node(), ClusterState.DEGRADED);
        assertThat(a.engine().snapshot().cluster().state()).isEqualTo(ClusterState.DEGRADED);

        // alone, with maxHits 10 divided by the 2 nodes last seen: 5 on this node
        for (int i = 0; i < 5; i++) {
            Timed alone = decide(a, "192.0.2.2");
            assertThat(alone.asked()).as("decided alone at once").isFalse();
            served(alone.decision());
        }
        Decision.Refuse sixth = refused(decide(a, "192.0.2.2").decision(), Reason.HIT_STACK);
        assertThat(sixth.rateLimit().limit()).isEqualTo(5);

        redis.restartEmpty();
        awaitState(a.node(), ClusterState.HEALTHY);
        Timed back = decide(a, "192.0.2.2");
        assertThat(back.asked()).isTrue();
        // the six hits counted alone were not replayed into Redis: this is the client's first hit there
        assertThat(admitted(back.decision()).rateLimit().remaining()).isEqualTo(9);
    }

    @Test
    void redisHungADecisionWaitsNoLongerThanTheDeadlineAndTheNodeComesBackWhenItWakes() {
        Member a = member("a", Policy.defaults());
        redis.hang();
        try {
            Timed first = decide(a, "192.0.2.1");
            assertThat(first.took()).isLessThan(DECISION_BOUND);
            served(first.decision());
            awaitState(a.node(), ClusterState.DEGRADED);
            Timed next = decide(a, "192.0.2.1");
            assertThat(next.asked()).isFalse();
            served(next.decision());
        } finally {
            redis.resume();
        }
        awaitState(a.node(), ClusterState.HEALTHY);
        // Healthy, the node asks Redis again. A loaded machine can miss a probe's deadline once more just after (the
        // node is then rightly degraded for a moment): each try is a new client, so none is refused by the tries.
        AtomicInteger client = new AtomicInteger(10);
        await(() -> {
            Timed back = decide(a, "192.0.2." + client.incrementAndGet());
            served(back.decision());
            return back.asked();
        }, "a decision that asks Redis again");
    }

    @Test
    void admissionsRunAsRedisFunctionsOnceLoaded() throws Exception {
        Member a = member("a", ClientStoreSpecification.generous());
        // loaded when Redis answered; until the node knows they are in, its admissions run by EVALSHA
        await(() -> libraries() >= 4, "the per-request scripts loaded as functions");
        awaitAnAdmissionByFunction(a);

        redis.command("CONFIG", "RESETSTAT");
        for (int i = 1; i <= 20; i++) {
            Timed one = decide(a, "198.51.100." + i);
            assertThat(one.asked()).isTrue();
            served(one.decision());
        }

        assertThat(redis.info("commandstats", "cmdstat_fcall:calls=")).isGreaterThanOrEqualTo(20);
    }

    @Test
    void scriptsAndFunctionsFlushedFromRedisAreSentAgainAndRunOnce() throws Exception {
        Member a = member("a", ClientStoreSpecification.generous());
        await(() -> libraries() >= 4, "the per-request scripts loaded as functions");
        awaitAnAdmissionByFunction(a);
        served(decide(a, "192.0.2.1").decision());
        long before = hitsInRedis("192.0.2.1");

        redis.command("FUNCTION", "FLUSH");
        redis.command("SCRIPT", "FLUSH");

        // FCALL finds no function and EVALSHA no script: EVAL runs it, once
        Timed after = decide(a, "192.0.2.1");
        assertThat(after.asked()).isTrue();
        served(after.decision());
        assertThat(hitsInRedis("192.0.2.1")).isEqualTo(before + 1);
        // and the function is loaded again, and called
        awaitAnAdmissionByFunction(a);
    }

    private long libraries() {
        try {
            return redis.info("memory", "number_of_libraries:");
        } catch (Exception e) {
            return 0;
        }
    }

    /** Decides for new clients until Redis has run an {@code FCALL}, counted from now. */
    private void awaitAnAdmissionByFunction(Member member) throws Exception {
        redis.command("CONFIG", "RESETSTAT");
        AtomicInteger client = new AtomicInteger();
        await(() -> {
            int n = client.incrementAndGet();
            served(decide(member, "198.18." + n / 256 + "." + n % 256).decision());
            try {
                return redis.info("commandstats", "cmdstat_fcall:calls=") > 0;
            } catch (Exception e) {
                return false;
            }
        }, "an admission run as a Redis function");
    }

    @Test
    void droppedConnectionsTheNodeKeepsDecidingAndReconnects() {
        Member a = member("a", Policy.defaults());
        for (int i = 0; i < 3; i++) {
            assertThat(redis.dropClients()).isPositive();
            Timed meanwhile = decide(a, "192.0.2.1");
            assertThat(meanwhile.took()).isLessThan(DECISION_BOUND);
            served(meanwhile.decision());
            awaitState(a.node(), ClusterState.HEALTHY);
        }
        // healthy again, it asks Redis (a busy machine may need a heartbeat or two more before the store is used)
        await(() -> {
            Timed back = decide(a, "192.0.2.9");
            if (back.decision() instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1_000_000);
            }
            return back.asked();
        }, "a decision asked of Redis again");
    }
}
