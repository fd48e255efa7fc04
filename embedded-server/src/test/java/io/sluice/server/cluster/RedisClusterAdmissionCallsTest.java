package io.sluice.server.cluster;

import static io.sluice.server.cluster.ClientStoreSpecification.CLASSIFIER;
import static io.sluice.server.cluster.ClientStoreSpecification.CURL;
import static io.sluice.server.cluster.ClientStoreSpecification.admitted;
import static io.sluice.server.cluster.ClientStoreSpecification.answered;
import static io.sluice.server.cluster.ClientStoreSpecification.refused;
import static io.sluice.server.cluster.ClusterFixture.awaitState;
import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.server.testkit.RealParts;
import io.sluice.server.testkit.TestRedis;
import io.sluice.server.testkit.TestRedisCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On a Redis Cluster, the admissions a node asks of one master while a call is in it go together in its next call,
 * whatever their slots (clients rarely share one), and a request or release whose slot moved to another master since
 * the node read the topology is judged there, once (docs/architecture-cluster.md, "Redis Cluster").
 */
@RealParts
class RedisClusterAdmissionCallsTest {
    private static final Policy TEN_HITS = ClientStoreSpecification.hitStack(ClientStoreSpecification.generous(), 15,
            10).withPerClient(new Policy.PerClient(32));

    private static TestRedisCluster redis;
    private ClusterFixture cluster;

    @BeforeAll
    static void startRedis() {
        redis = TestRedisCluster.start(3, 0);
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void start() {
        redis.reset();
        cluster = new ClusterFixture(redis);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private record Member(ThrottleEngine engine, RedisClientStateStore store) {
    }

    private Member member(String name) {
        return member(name, TEN_HITS);
    }

    private Member member(String name, Policy policy) {
        RedisClientStateStore store = new RedisClientStateStore(ClusterFixture.UNHURRIED, Duration.ofSeconds(35));
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), InstantSource.system(), policy,
                CLASSIFIER, null, store);
        ClusterNode node = cluster.node(name, new EngineLoad(engine), ClusterFixture.UNHURRIED);
        node.shareClientState(store);
        engine.reportClusterStatus(node::status);
        awaitState(node, ClusterState.HEALTHY);
        return new Member(engine, store);
    }

    /**
     * {@code count} addresses whose keys are on {@code master}, each in a slot of its own: on a Redis Cluster a
     * client's keys are tagged with its network (its /24, the browser check's default), so each is of a /24 of its
     * own.
     */
    private static List<String> addressesOn(TestRedis master, int count) {
        List<String> found = new ArrayList<>();
        Set<Integer> slots = new HashSet<>();
        for (int i = 1; found.size() < count; i++) {
            String ip = "198." + (51 + i / 250) + "." + (i % 250) + ".1";
            int slot = slotOf(ip);
            if (redis.serves(master, slot) && slots.add(slot)) {
                found.add(ip);
            }
        }
        return found;
    }

    /** The hash tag of {@code ip}'s keys on a Redis Cluster: its /24. */
    private static String tagOf(String ip) {
        return ip.substring(0, ip.lastIndexOf('.')) + ".0/24";
    }

    private static int slotOf(String ip) {
        return SlotHash.getSlot(tagOf(ip));
    }

    /** The hits {@code node} holds for {@code ip}'s clients in the last minute. */
    private static long hitsIn(TestRedis node, String ip) throws IOException {
        return ClusterFixture.hitsMatching(node,
                ClusterFixture.SETTINGS.keyPrefix() + "{" + tagOf(ip) + "}:" + ip + ":m:*");
    }

    /** Each of {@code clients} served once and refused once by the one-hit policy: the node knows it refused. */
    private static void knownRefused(Member member, List<String> clients) {
        for (String ip : clients) {
            servedAt(member, ip);
            refused(answered(member.engine().decide(Request.direct(ip, CURL))), Reason.HIT_STACK);
        }
    }

    private static void awaitHits(TestRedis master, String ip, long hits, String what) {
        await(() -> {
            try {
                return hitsIn(master, ip) == hits;
            } catch (IOException e) {
                return false;
            }
        }, what + ", for " + ip);
    }

    private static Decision.Admit servedAt(Member member, String ip) {
        Decision.Admit admit = admitted(answered(member.engine().decide(Request.direct(ip, CURL))));
        admit.admission().complete(200, 1_000);
        return admit;
    }

    @Test
    void aMastersClientsAskedWhileItsCallIsInRedisGoInItsNextCallThoughNoTwoShareASlot() {
        TestRedis master = redis.masters().get(0);
        List<String> clients = addressesOn(master, 13);
        Member a = member("a");
        servedAt(a, clients.get(12)); // the link and the functions ready
        await(() -> !a.store().releasesPending(), "the release to be sent");
        long before = a.store().commandsSent();

        List<Decision> asked = new ArrayList<>();
        master.hang();
        try {
            for (String ip : clients.subList(0, 12)) {
                asked.add(a.engine().decide(Request.direct(ip, CURL)));
            }
        } finally {
            master.resume();
        }

        for (Decision decision : asked) {
            assertThat(admitted(answered(decision)).rateLimit().remaining()).as("each client's first hit")
                    .isEqualTo(9);
        }
        assertThat(a.store().commandsSent() - before)
                .as("the first alone, the eleven of other slots of its master asked behind it in one call")
                .isEqualTo(2);
    }

    @Test
    void aClientWhoseSlotMovedAfterTheNodeReadTheTopologyIsJudgedAndReleasedWhereItsKeysAreOnce() throws Exception {
        TestRedis from = redis.masters().get(0);
        TestRedis to = redis.masters().get(1);
        List<String> clients = addressesOn(from, 3);
        String moving = clients.get(0);
        String staying = clients.get(1);
        String holding = clients.get(2);
        Member a = member("a");
        Decision.Admit stayingFirst = admitted(answered(a.engine().decide(Request.direct(staying, CURL))));
        Decision.Admit movingFirst = admitted(answered(a.engine().decide(Request.direct(moving, CURL))));

        int slot = slotOf(moving);
        redis.moveSlot(slot, from, to);
        Decision holdingNext;
        Decision movingNext;
        Decision stayingNext;
        from.hang();
        try {
            // the node still sends the moved slot's keys to the master it had: behind this call, in one call, routed
            // by the first release's keys, which stayed
            holdingNext = a.engine().decide(Request.direct(holding, CURL));
            stayingFirst.admission().complete(200, 1_000);
            movingFirst.admission().complete(200, 1_000);
            movingNext = a.engine().decide(Request.direct(moving, CURL));
            stayingNext = a.engine().decide(Request.direct(staying, CURL));
        } finally {
            from.resume();
        }

        assertThat(admitted(answered(movingNext)).rateLimit().remaining())
                .as("its two hits counted once each, the first where it was and now is").isEqualTo(8);
        assertThat(admitted(answered(stayingNext)).rateLimit().remaining()).isEqualTo(8);
        admitted(answered(holdingNext));
        await(() -> !a.store().releasesPending(), "the releases to be given back");
        assertThat(hitsIn(to, moving)).as("Redis's count, where its slot is now").isEqualTo(2);
        assertThat(hitsIn(from, staying)).as("Redis's count, where its slot stayed").isEqualTo(2);
        assertThat(leasesIn(to, moving)).as("its first request's lease given back where it is now").isEqualTo(1);
        assertThat(leasesIn(from, staying)).isEqualTo(1);
        assertThat(from.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo("0");
    }

    /** The leases {@code node} holds for {@code ip}'s clients (not their sets' placeholders, scored 0). */
    private static long leasesIn(TestRedis node, String ip) throws IOException {
        return Long.parseLong(node.command("EVAL", "local n = 0 "
                + "for _, k in ipairs(redis.call('KEYS', ARGV[1])) do "
                + "n = n + redis.call('ZCOUNT', k, '(0', '+inf') end "
                + "return n", "0", ClusterFixture.SETTINGS.keyPrefix() + "{" + tagOf(ip) + "}:" + ip + ":l:*"));
    }

    @Test
    void aCallCarryingKeysOfASlotItsMasterDoesNotServeAnswersNotHereForThemAndWritesNothingOfTheirs()
            throws IOException {
        TestRedis master = redis.masters().get(2);
        TestRedis elsewhere = redis.masters().get(0);
        List<String> here = addressesOn(master, 2);
        String away = addressesOn(elsewhere, 1).get(0);
        List<String> keys = new ArrayList<>(List.of(key(away, "cl"), key(away, "al"))); // a release, then 3 requests
        for (String ip : List.of(here.get(0), away, here.get(1))) {
            keys.addAll(List.of(key(ip, "h"), key(ip, "a"), key(ip, "cl"), key(ip, "al")));
        }
        List<String> words = new ArrayList<>(List.of("EVAL", CLIENT_ADMIT, "1", keys.get(2), "*",
                Integer.toString(keys.size())));
        words.addAll(keys);
        // a release, one set of limits (the last five: no network, no pass), then the three requests
        words.addAll(List.of("1", "lease-0", "1", "15", "10", "0", "0", "15", "100", "8", "64", "35000", "1000",
                "0", "0", "0", "0", "0"));
        for (int i = 1; i <= 3; i++) {
            words.addAll(List.of("1", "1", "lease-" + i, "-1"));
        }

        String answers = master.command(words.toArray(String[]::new));

        assertThat(answers).as("first and third judged; the second NOT_HERE; release 1 not given back")
                .matches("0,0,1,\\d+,-1,0,0,0,0,0,1,\\d+,1");
        int awaySlot = slotOf(away);
        for (TestRedis node : List.of(master, elsewhere)) {
            assertThat(node.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(awaySlot))).isEqualTo("0");
        }
        assertThat(master.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slotOf(here.get(1)))))
                .as("the request after the one not here judged with its own keys, as the one before it")
                .isEqualTo(master.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slotOf(here.get(0)))))
                .isNotEqualTo("0");
    }

    @Test
    void theHitsOfClientsKnownRefusedGoToRedisInOneFlushCallPerMasterNotOnePerSlot() throws Exception {
        Member a = member("a", ClientStoreSpecification.hitStack(ClientStoreSpecification.generous(), 15, 1));
        List<String> clients = new ArrayList<>();
        for (TestRedis master : redis.masters()) {
            clients.addAll(addressesOn(master, 10));
        }
        knownRefused(a, clients);
        await(() -> !a.store().releasesPending() && a.store().counts().get("unflushed") == 0, "the releases sent");
        long calls = a.store().commandsSent();
        long flushes = a.store().flushesSent();

        for (int i = 0; i < 3; i++) {
            for (String ip : clients) {
                refused(a.engine().decide(Request.direct(ip, CURL)), Reason.HIT_STACK); // counted, flushed later
            }
        }
        for (String ip : clients) {
            TestRedis master = redis.masters().stream().filter(node -> redis.serves(node, slotOf(ip)))
                    .findFirst().orElseThrow();
            awaitHits(master, ip, 5, "the admitted hit, the refused one asked and the three flushed, each once");
        }
        long flushCalls = a.store().commandsSent() - calls;
        long heartbeats = a.store().flushesSent() - flushes;
        assertThat(flushCalls).as("one call per master in each of %d flushes, for 30 clients in 30 slots", heartbeats)
                .isLessThanOrEqualTo(3 * heartbeats).isLessThan(clients.size());
    }

    @Test
    void theRefusedHitsOfAClientWhoseSlotMovedAfterTheNodeReadTheTopologyAreAddedWhereItsStackIsOnce()
            throws Exception {
        TestRedis from = redis.masters().get(0);
        TestRedis to = redis.masters().get(1);
        List<String> clients = addressesOn(from, 2);
        String moving = clients.get(0);
        String staying = clients.get(1);
        Member a = member("a", ClientStoreSpecification.hitStack(ClientStoreSpecification.generous(), 15, 1));
        knownRefused(a, clients);
        await(() -> !a.store().releasesPending(), "the releases sent");

        redis.moveSlot(slotOf(moving), from, to);
        for (int i = 0; i < 3; i++) {
            for (String ip : clients) {
                // counted, flushed in one call to the master the node still thinks has both
                refused(a.engine().decide(Request.direct(ip, CURL)), Reason.HIT_STACK);
            }
        }

        for (TestRedis master : List.of(to, from)) {
            String ip = master == to ? moving : staying;
            awaitHits(master, ip, 5, "two hits asked and three flushed, each once, where its stack is");
        }
        await(() -> a.store().counts().get("unflushed") == 0, "nothing left to flush");
        assertThat(hitsIn(to, moving)).as("not added twice").isEqualTo(5);
        assertThat(hitsIn(from, staying)).as("not added twice").isEqualTo(5);
    }

    @Test
    void aFlushCarryingAStackOfASlotItsMasterDoesNotServeAnswersItAndAddsNothingThere() throws IOException {
        TestRedis master = redis.masters().get(2);
        TestRedis elsewhere = redis.masters().get(0);
        String here = addressesOn(master, 1).get(0);
        String away = addressesOn(elsewhere, 1).get(0);

        String notHere = master.command("EVAL", CLIENT_FLUSH, "1", key(here, "h"), "*", "2", key(here, "h"),
                key(away, "h"), "3", "", "3", "");

        assertThat(notHere).as("the second stack's index").isEqualTo("2");
        assertThat(master.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slotOf(here))))
                .isEqualTo("1");
        for (TestRedis node : List.of(master, elsewhere)) {
            assertThat(node.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slotOf(away))))
                    .isEqualTo("0");
        }
    }

    private static String key(String ip, String what) {
        return "test:{" + tagOf(ip) + "}:" + ip + ":" + what;
    }

    /**
     * client-admit.lua and client-flush.lua as EVAL runs them, their answers joined by commas (TestRedis reads simple
     * replies only).
     */
    private static final String CLIENT_ADMIT = evaluated("client-admit");
    private static final String CLIENT_FLUSH = evaluated("client-flush");

    private static String evaluated(String script) {
        StringBuilder text = new StringBuilder();
        for (String name : List.of("locals", "hit-stacks", "lease-names", "address-stacks", script)) {
            try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
                text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        String run = "return run(KEYS, ARGV)";
        String evaluated = LuaScript.evaluated(text.toString());
        assertThat(evaluated).contains(run);
        return evaluated.replace(run, "return table.concat(run(KEYS, ARGV), ',')");
    }
}
