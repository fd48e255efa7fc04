package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static io.sluice.engine.EngineFixture.waiting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.internal.ClientStateStore;
import io.sluice.engine.internal.HitStackState;
import io.sluice.engine.internal.LocalClientStateStore;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.NetworkInFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Issue 46's per-network concurrency limit: a network's browser requests in flight, without a pass and on passes, are
 * limited on this node; over the limit a page is challenged and anything else refused {@code NETWORK_CONCURRENCY};
 * the slot is given back however the request ends, once.
 */
class NetworkConcurrencyTest {

    private static final long DAY = 86_400_000L;
    /** The limit without a pass in these tests: below the pressure threshold, so the limit is what asks. */
    private static final int WITHOUT_PASS = 20;
    private static final int WITH_PASS = 30;
    private static final String NETWORK = "192.0.2.0/24";

    private final ManualClock clock = ManualClock.at("2026-12-01T10:00:00Z");

    /** Adaptive (the default), the site never under pressure (the fleet is what is tested), the limits above. */
    private static Policy policy() {
        return policy(BrowserCheck.Mode.ADAPTIVE);
    }

    private static Policy policy(BrowserCheck.Mode mode) {
        BrowserCheck d = BrowserCheck.DEFAULTS;
        BrowserCheck check = new BrowserCheck(mode, d.difficulty(), d.passTtlSeconds(), d.noScript(),
                d.noScriptWaitSeconds(), 100_000, d.pressureHoldSeconds(), d.perPass(),
                d.networks().withMaxConcurrent(WITHOUT_PASS, WITH_PASS), d.exemptPaths(), d.alwaysChallenge());
        return Policy.defaults().withBrowserCheck(check)
                .withLoad(new Policy.Load(1_000, 10, 500));
    }

    private ThrottleEngine engine(Policy policy) {
        return EngineFixture.engine(clock, policy);
    }

    private static Request page(String ip, String path) {
        return Request.get(ip, BROWSER, path).asNavigation();
    }

    /** A fetch of an API by a page's script: a read, not a page, never challenged. */
    private static Request fetch(String ip) {
        return new Request(ip, BROWSER, null, "GET", "/api/items", null, "empty", "cors", "application/json", null);
    }

    private static Request post(String ip) {
        return new Request(ip, BROWSER, null, "POST", "/comment", null, null, "navigate", "text/html", null);
    }

    private String passFor(ThrottleEngine engine, String ip, boolean weak) {
        return engine.browserPasses().mint("p" + ip.replace('.', '_') + (weak ? "w" : "s"), weak, IpAddress.parse(ip),
                BROWSER, clock.millis() + DAY);
    }

    /** The network's row in the snapshot, or null when it has nothing in flight and was not limited lately. */
    private static NetworkInFlight row(ThrottleEngine engine, String network) {
        return engine.snapshot().browserCheck().busiestNetworks().stream()
                .filter(r -> r.network().equals(network)).findFirst().orElse(null);
    }

    private static int withoutPassInFlight(ThrottleEngine engine) {
        NetworkInFlight row = row(engine, NETWORK);
        return row == null ? 0 : row.withoutPass();
    }

    /** 50 addresses of one /24 each holding a page open: the first {@code held} are admitted and held. */
    private List<Decision.Admit> fill(ThrottleEngine engine, int held) {
        List<Decision.Admit> running = new ArrayList<>();
        for (int i = 1; i <= held; i++) {
            running.add(admitted(engine.decide(page("192.0.2." + i, "/articles/" + i))));
        }
        return running;
    }

    @Nested
    class AFleetOfOneSlash24 {

        private final ThrottleEngine engine = engine(policy());

        @Test
        void isAdmittedUpToTheLimitThenChallengedAndAdmittedAgainOnceItsRequestsComplete() {
            List<Decision.Admit> running = fill(engine, WITHOUT_PASS);
            for (int i = WITHOUT_PASS + 1; i <= 50; i++) {
                Decision.Refuse challenge = refused(engine.decide(page("192.0.2." + i, "/articles/" + i)),
                        Reason.CHALLENGE);
                assertThat(challenge.detail()).contains(WITHOUT_PASS + " requests", "in progress");
                assertThat(challenge.dropPass()).isFalse();
            }
            // a neighbouring /24 has a limit of its own
            served(engine.decide(page("192.0.3.1", "/articles/1")));

            BrowserCheckCounts counts = engine.snapshot().browserCheck();
            assertThat(counts.overNetworkConcurrency()).isEqualTo(50 - WITHOUT_PASS);
            assertThat(counts.challenged()).isEqualTo(50 - WITHOUT_PASS);
            assertThat(counts.busiestNetworks()).first().isEqualTo(
                    new NetworkInFlight(NETWORK, WITHOUT_PASS, 0, 50 - WITHOUT_PASS));

            running.remove(0).admission().complete(200, 1_000_000);
            Decision.Admit next = admitted(engine.decide(page("192.0.2.21", "/articles/21")));
            refused(engine.decide(page("192.0.2.22", "/articles/22")), Reason.CHALLENGE);
            running.add(next);
            running.forEach(admit -> admit.admission().complete(200, 1_000_000));
            for (int i = WITHOUT_PASS + 1; i <= 2 * WITHOUT_PASS; i++) {
                admitted(engine.decide(page("192.0.2." + i, "/articles/" + i)));
            }
            assertThat(row(engine, NETWORK).withoutPass()).isEqualTo(WITHOUT_PASS);
        }

        @Test
        void whatIsNotAPageIsRefusedWithItsOwnReasonAndAFormIsAskedForAPass() {
            fill(engine, WITHOUT_PASS);
            Decision.Refuse refusal = refused(engine.decide(fetch("192.0.2.30")), Reason.NETWORK_CONCURRENCY);
            assertThat(refusal.status()).isEqualTo(503);
            assertThat(refusal.retryAfterSeconds()).isEqualTo(Policy.defaults().refusal().retryAfterSeconds());
            refused(engine.decide(Request.get("192.0.2.31", BROWSER, "/site.css")), Reason.NETWORK_CONCURRENCY);
            refused(engine.decide(post("192.0.2.32")), Reason.PASS_REQUIRED);
            assertThat(engine.snapshot().totals().get(RequestClass.BROWSER).refused())
                    .containsEntry(Reason.NETWORK_CONCURRENCY, 2L);
        }

        @Test
        void crawlersBotsAndTheAllowListAreNotCounted() {
            fill(engine, WITHOUT_PASS);
            served(engine.decide(Request.get("192.0.2.40", EngineFixture.CURL, "/")));
            ThrottleEngine off = engine(policy(BrowserCheck.Mode.OFF));
            for (int i = 1; i <= 50; i++) {
                admitted(off.decide(page("192.0.2." + i, "/articles/" + i)));
            }
        }

        @Test
        void anIpv6Slash48IsOneNetwork() {
            for (int i = 0; i < WITHOUT_PASS; i++) {
                admitted(engine.decide(page("2001:db8:1:" + Integer.toHexString(i) + "::1", "/p/" + i)));
            }
            refused(engine.decide(page("2001:db8:1:ffff::1", "/p/next")), Reason.CHALLENGE);
            admitted(engine.decide(page("2001:db8:2::1", "/p/next")));
            assertThat(row(engine, "2001:db8:1::/48").withoutPass()).isEqualTo(WITHOUT_PASS);
        }
    }

    @Nested
    class OnPasses {

        private final ThrottleEngine engine = engine(policy());

        @Test
        void aNetworkHasALargerLimitOnPassesOfItsOwnAndAPassOverItIsAskedAgainNotDropped() {
            List<Decision.Admit> running = new ArrayList<>();
            for (int i = 1; i <= WITH_PASS; i++) {
                String ip = "192.0.2." + i;
                running.add(admitted(engine.decide(page(ip, "/a").withPass(passFor(engine, ip, false)))));
            }
            String late = passFor(engine, "192.0.2.200", false);
            Decision.Refuse challenge = refused(engine.decide(page("192.0.2.200", "/a").withPass(late)),
                    Reason.CHALLENGE);
            assertThat(challenge.dropPass()).as("the network is busy, the pass is good").isFalse();
            assertThat(challenge.detail()).contains("on passes");
            refused(engine.decide(fetch("192.0.2.200").withPass(late)), Reason.NETWORK_CONCURRENCY);
            // the limit without a pass is counted apart
            admitted(engine.decide(page("192.0.2.201", "/a")));
            assertThat(row(engine, NETWORK)).isEqualTo(new NetworkInFlight(NETWORK, 1, WITH_PASS, 2));
            assertThat(engine.snapshot().browserCheck().passesDropped()).isZero();

            running.get(0).admission().complete(200, 1_000_000);
            admitted(engine.decide(page("192.0.2.200", "/a").withPass(late)));
        }
    }

    @Nested
    class TheSlotGoesBackOnce {

        @Test
        void whenTheClientRulesRefuseTheRequest() {
            ThrottleEngine engine = engine(policy().withPerClient(new Policy.PerClient(1)));
            Decision.Admit first = admitted(engine.decide(page("192.0.2.1", "/a")));
            refused(engine.decide(page("192.0.2.1", "/b")), Reason.CLIENT_CONCURRENCY);
            assertThat(withoutPassInFlight(engine)).isEqualTo(1);
            first.admission().complete(200, 1_000_000);
            assertThat(withoutPassInFlight(engine)).isZero();
        }

        @Test
        void whenItsAdmissionCompletesTwice() {
            ThrottleEngine engine = engine(policy());
            List<Decision.Admit> running = fill(engine, 3);
            running.get(0).admission().complete(200, 1_000_000);
            running.get(0).admission().complete(502, -1);
            assertThat(withoutPassInFlight(engine)).isEqualTo(2);
        }

        @Test
        void whenItsWaitIsCancelledOrRefusedAfterIt() {
            // a weak pass waits behind the load gate; the site's load is held by bots
            Policy policy = policy().withLoad(new Policy.Load(2, 10, 500));
            ThrottleEngine engine = engine(policy);
            for (int i = 0; i < 2; i++) {
                admitted(engine.decide(Request.get("198.51.100." + (i + 1), EngineFixture.CURL, "/")));
            }
            String weak = passFor(engine, "192.0.2.1", true);
            Decision.Wait cancelled = waiting(engine.decide(page("192.0.2.1", "/a").withPass(weak)), Reason.LOAD);
            Decision.Wait refusedAfter = waiting(engine.decide(page("192.0.2.1", "/b").withPass(weak)), Reason.LOAD);
            assertThat(row(engine, NETWORK).onPass()).isEqualTo(2);
            cancelled.deferral().cancel();
            cancelled.deferral().cancel();
            assertThat(row(engine, NETWORK).onPass()).isEqualTo(1);
            clock.advanceMillis(500);
            refused(refusedAfter.deferral().resume(), Reason.LOAD);
            assertThat(row(engine, NETWORK)).isNull();
        }

        @Test
        void whenAClustersDecisionArrivesLater() {
            LocalClientStateStore store = LocalClientStateStore.ofAggregates(1_000, Duration.ofMinutes(5), clock);
            ClientKey network = ClientKey.ofAddress(IpAddress.parse("192.0.2.1"), 24, 48);
            ClientInfo client = new ClientInfo("192.0.2.1", BROWSER, RequestClass.BROWSER, null, false);

            NetworkSlot<?> refusedLater = take(store, network, client);
            CompletableFuture<Decision> answer = new CompletableFuture<>();
            Decision held = BrowserGate.holding(new Decision.Pending(client, answer), refusedLater);
            assertThat(held).isInstanceOf(Decision.Pending.class);
            assertThat(refusedLater.isReleased()).isFalse();
            answer.complete(new Decision.Refuse(client, Reason.HIT_STACK, 503, 1, null, "over"));
            assertThat(refusedLater.isReleased()).isTrue();

            NetworkSlot<?> failedLater = take(store, network, client);
            CompletableFuture<Decision> failing = new CompletableFuture<>();
            BrowserGate.holding(new Decision.Pending(client, failing), failedLater);
            failing.completeExceptionally(new IllegalStateException("the store's contract broken"));
            assertThat(failedLater.isReleased()).isTrue();
            assertThat(store.mostInFlight(10, clock.millis(), clock.millis())).isEmpty();
        }

        @Test
        void whenTheRulesAfterTheCheckThrow() {
            LocalClientStateStore store = LocalClientStateStore.ofAggregates(1_000, Duration.ofMinutes(5), clock);
            ClientKey network = ClientKey.ofAddress(IpAddress.parse("192.0.2.1"), 24, 48);
            ClientInfo client = new ClientInfo("192.0.2.1", BROWSER, RequestClass.BROWSER, null, false);
            NetworkSlot<?> slot = take(store, network, client);
            Prelude.Next broken = (compiled, info, key, address, route, now) -> {
                throw new IllegalStateException("a rule broke");
            };
            assertThatThrownBy(() -> BrowserGate.holding(slot, broken, null, client, null, null, null, 0))
                    .hasMessage("a rule broke");
            assertThat(slot.isReleased()).isTrue();
        }

        private static <C, L> NetworkSlot<L> take(ClientStateStore<C, L> store, ClientKey network,
                                                  ClientInfo client) {
            HitStackState<C> hits = store.pushHit(network, client, 0, new Policy.HitStack(15, 100), 1);
            L lease = store.acquireInFlight(network, hits.client(), 10);
            assertThat(lease).isNotNull();
            return new NetworkSlot<>(store, lease);
        }
    }

    @Nested
    class UnderContention {

        /**
         * Four threads, each as a few addresses of one /24, take pages and complete them at once or after another
         * page: the network never has more than its limit admitted, and has nothing in flight at the end.
         */
        @Test
        void aNetworkNeverHasMoreThanItsLimitInFlightAndNothingLeaks() throws Exception {
            ThrottleEngine engine = engine(policy().withPerClient(new Policy.PerClient(1_000))
                    .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000_000, 1_000))
                    .withHitStack(new Policy.HitStack(15, 1_000_000)));
            AtomicInteger admitted = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    List<Decision.Admit> mine = new ArrayList<>();
                    for (int i = 0; i < 5_000; i++) {
                        Request asset = Request.get("192.0.2." + (thread * 10 + i % 10 + 1), BROWSER, "/api/" + i);
                        Decision decision = engine.decide(asset);
                        if (decision instanceof Decision.Admit admit) {
                            most.accumulateAndGet(admitted.incrementAndGet(), Math::max);
                            mine.add(admit);
                        }
                        // hold up to a dozen each, then let them go in order
                        while (mine.size() > (i % 13)) {
                            admitted.decrementAndGet();
                            mine.remove(0).admission().complete(200, 1_000);
                        }
                    }
                    mine.forEach(admit -> {
                        admitted.decrementAndGet();
                        admit.admission().complete(200, 1_000);
                    });
                }));
            }
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(most.get()).isLessThanOrEqualTo(WITHOUT_PASS).isGreaterThan(WITHOUT_PASS / 2);
            assertThat(withoutPassInFlight(engine)).isZero();
            assertThat(engine.inFlight()).isZero();
        }
    }

    @Nested
    class BoundedMemory {

        @Test
        void aNetworkEvictedWithRequestsRunningKeepsItsCountUntilTheyComplete() {
            ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults().withMaxTrackedClients(1_000), clock,
                    policy(), new FakeClassifier());
            List<Decision.Admit> running = fill(engine, WITHOUT_PASS);
            // a spray of networks, each seen twice: the network table (1,000 at least) evicts
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 3_000; i++) {
                    served(engine.decide(page("10." + (i / 256) + "." + (i % 256) + ".1", "/s/" + round)));
                }
            }
            BrowserCheckCounts counts = engine.snapshot().browserCheck();
            assertThat(counts.networks().evicted()).isPositive();
            // the main tables and their newcomers (2% each)
            assertThat(counts.networks().tracked()).isLessThanOrEqualTo(counts.networks().capacity() * 102 / 100);
            refused(engine.decide(page("192.0.2.21", "/articles/21")), Reason.CHALLENGE);
            running.forEach(admit -> admit.admission().complete(200, 1_000_000));
            admitted(engine.decide(page("192.0.2.21", "/articles/21")));
        }

        @Test
        void aNetworkIdleLongerThanTheTablesKeepItIsNotForgottenWhileItsRequestsRun() {
            ThrottleEngine engine = engine(policy());
            List<Decision.Admit> running = fill(engine, WITHOUT_PASS);
            // long downloads: the network's state expires from its table with its requests still running
            clock.advanceMillis((EngineConfig.defaults().idleSeconds() + 60) * 1000L);
            served(engine.decide(page("198.51.100.1", "/elsewhere")));
            refused(engine.decide(page("192.0.2.21", "/articles/21")), Reason.CHALLENGE);
            running.forEach(admit -> admit.admission().complete(200, 1_000_000));
            served(engine.decide(page("192.0.2.21", "/articles/21")));
            assertThat(row(engine, NETWORK).withoutPass()).isZero();
        }
    }

    @Nested
    class ItsPolicy {

        @Test
        void aPolicyWithoutTheLimitsKeepsItsMeaningWithTheDefaults() throws Exception {
            String json = "{\"ipv4Prefix\":24,\"ipv6Prefix\":48}";
            BrowserCheck.Networks read = PolicyJson.mapper().readValue(json,
                    BrowserCheck.Networks.class);
            assertThat(read.maxConcurrentWithoutPass()).isEqualTo(BrowserCheck.Networks.MAX_CONCURRENT_WITHOUT_PASS);
            assertThat(read.maxConcurrentWithPass()).isEqualTo(BrowserCheck.Networks.MAX_CONCURRENT_WITH_PASS);
            assertThat(BrowserCheck.Networks.MAX_CONCURRENT_WITH_PASS)
                    .isGreaterThan(BrowserCheck.Networks.MAX_CONCURRENT_WITHOUT_PASS);
        }

        @Test
        void badLimitsAreNamedAndNothingChanges() {
            ThrottleEngine engine = engine(policy());
            BrowserCheck check = engine.policy().browserCheck();
            Policy bad = engine.policy().withBrowserCheck(check.withNetworks(
                    check.networks().withMaxConcurrent(0, 2_000_000)));
            assertThat(PolicyValidator.validate(bad)).extracting(e -> e.field() + ": " + e.message()).containsExactly(
                    "browserCheck.networks.maxConcurrentWithoutPass: must be between 1 and 1000000 requests, was 0",
                    "browserCheck.networks.maxConcurrentWithPass: must be between 1 and 1000000 requests, was 2000000");
            Policy before = engine.policy();
            assertThatThrownBy(() -> EngineFixture.changePolicyUnaudited(engine, p -> bad))
                    .isInstanceOf(PolicyValidationException.class);
            assertThat(engine.policy()).isEqualTo(before);
        }

        @Test
        void loweringTheLimitLiveCancelsNothingRunningAndRefusesTheNext() {
            ThrottleEngine engine = engine(policy());
            List<Decision.Admit> running = fill(engine, 10);
            EngineFixture.changePolicyUnaudited(engine, p -> p.withBrowserCheck(p.browserCheck().withNetworks(
                    p.browserCheck().networks().withMaxConcurrent(5, WITH_PASS))));
            refused(engine.decide(page("192.0.2.11", "/a")), Reason.CHALLENGE);
            for (int i = 0; i < 6; i++) {
                running.get(i).admission().complete(200, 1_000_000);
            }
            admitted(engine.decide(page("192.0.2.11", "/a")));
        }
    }
}
