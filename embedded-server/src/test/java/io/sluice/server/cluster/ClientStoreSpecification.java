package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.ClientInfo;
import io.sluice.engine.Decision;
import io.sluice.engine.RateLimitStatus;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.AllowEntry;
import io.sluice.engine.policy.AllowType;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.server.testkit.Await;
import io.sluice.server.testkit.UnauditedPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The per-client rules, 3 to 5 of docs/manual/policy.md ("The rules": crawler spacing, the hit stacks of the
 * client, its route and its address, per-client and per-address concurrency), as every store must keep them,
 * written once and run against each: the single node's local store, the cluster's Redis store with several nodes
 * sharing one Redis, and a cluster node deciding alone (its Redis unavailable). "Node a" and "node b" are two front
 * ends of one cluster; for a single node they are the same engine, and the rules read the same: the 11th hit is
 * refused on whichever node it lands.
 *
 * <p>The engines' time is an injected clock; Redis judges windows on its own clock, which is real, so the
 * windows here are short and {@link #passTime} both waits and moves the clock for a store that needs it. A test
 * whose seconds matter starts with {@link #alignToASecond}: its first hits fall 50 ms into a second.
 *
 * <p>Every test states the policy as an operator writes it; a store that applies a share of it (a node deciding
 * alone divides the counts by the nodes it last saw) is handed the policy whose share is the one stated
 * ({@link #asApplied}), so one expectation holds for every store.
 */
abstract class ClientStoreSpecification {
    static final String CURL = "curl/8.5.0";
    static final String WGET = "Wget/1.21.4";
    static final String PYTHON = "python-requests/2.31.0";
    static final String BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
    static final String GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    static final String BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    static final CrawlerListClassifier CLASSIFIER = CrawlerListClassifier.bundled();
    /** A decision that needs Redis comes back within its 50 ms deadline; this only guards against a hang. */
    private static final long ANSWER_SECONDS = 5;

    /** The engines' clock, 50 ms into a second, so a test's seconds are the local stores' buckets. */
    final MovableClock clock = new MovableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS).plusMillis(50));

    /** The policy as the test states it (null until the first node is made). */
    private Policy stated;

    /** Starts the node called {@code name} with {@code policy}, or returns it if it runs already. */
    abstract ThrottleEngine startNode(String name, Policy policy);

    /** Every node started so far. */
    abstract Collection<ThrottleEngine> nodes();

    /** Time goes by for the engines and for the store. */
    abstract void passTime(Duration duration);

    /** For a store on a real clock, waits for the start of a second, so a test's hits fall in known buckets. */
    abstract void alignToASecond();

    /**
     * The policy a node of this store is given so that the limits it applies are {@code stated}: the same policy,
     * unless the store applies a share of it.
     */
    Policy asApplied(Policy stated) {
        return stated;
    }

    /** The node called {@code name}, under {@code policy} (every node of a test shares one policy). */
    final ThrottleEngine node(String name, Policy policy) {
        stated = policy;
        return startNode(name, asApplied(policy));
    }

    /** An operator's live edit, installed on every node: it applies from the next request. */
    final void changePolicy(UnaryOperator<Policy> change) {
        stated = change.apply(stated);
        Policy applied = asApplied(stated);
        for (ThrottleEngine node : nodes()) {
            UnauditedPolicy.change(node, live -> applied);
        }
    }

    /** The decision, once made (a pending one is awaited). */
    static Decision decide(ThrottleEngine node, String ip, String agent) {
        return decide(node, Request.direct(ip, agent));
    }

    /** The decision about {@code GET path}, once made. */
    static Decision decide(ThrottleEngine node, String ip, String agent, String path) {
        return decide(node, Request.get(ip, agent, path));
    }

    /** The decision about {@code request}, once made (a pending one is awaited). */
    static Decision decide(ThrottleEngine node, Request request) {
        Decision decision = node.decide(request);
        if (decision instanceof Decision.Pending pending) {
            try {
                return pending.decision().toCompletableFuture().get(ANSWER_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("no decision within " + ANSWER_SECONDS + " s", e);
            }
        }
        return decision;
    }

    /** The decision, awaited if it is pending on Redis. */
    static Decision answered(Decision decision) {
        if (decision instanceof Decision.Pending pending) {
            try {
                return pending.decision().toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return decision;
    }

    static Decision.Admit admitted(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Admit.class);
        return (Decision.Admit) decision;
    }

    static Decision.Refuse refused(Decision decision, Reason reason) {
        assertThat(decision).isInstanceOf(Decision.Refuse.class);
        Decision.Refuse refusal = (Decision.Refuse) decision;
        assertThat(refusal.reason()).isEqualTo(reason);
        return refusal;
    }

    static Decision.Wait waiting(Decision decision, Reason reason) {
        assertThat(decision).isInstanceOf(Decision.Wait.class);
        Decision.Wait wait = (Decision.Wait) decision;
        assertThat(wait.reason()).isEqualTo(reason);
        return wait;
    }

    static void served(Decision decision) {
        admitted(decision).admission().complete(200, 1_000_000);
    }

    /**
     * Admitted once the slot another node gave back is free: a release travels on its node's own connection,
     * so another node's next request may reach the store just before it.
     */
    static Decision.Admit admittedSoon(ThrottleEngine node, String ip, String agent) {
        AtomicReference<Decision> last = new AtomicReference<>();
        Await.within(Duration.ofSeconds(ANSWER_SECONDS), () -> {
            last.set(decide(node, ip, agent));
            return last.get() instanceof Decision.Admit;
        });
        return admitted(last.get());
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Policy hitStack(Policy policy, int windowSeconds, int maxHits) {
        return policy.withHitStack(new Policy.HitStack(windowSeconds, maxHits));
    }

    /** Hit stacks no test reaches (the client's and the address's), for tests of the other rules. */
    static Policy generous() {
        return hitStack(Policy.defaults(), 15, 1_000).withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 32));
    }

    static Route route(String prefix, int weight, Policy.HitStack limits) {
        return new Route(Route.Match.PREFIX, prefix, null, List.of(), List.of(), List.of(), weight, limits, null);
    }

    // ---------------------------------------------------------------- the browser check's network budgets

    /**
     * {@code policy} with the browser check in {@code mode} and network budgets (every IPv4 /24) of {@code withoutPass}
     * browser claims without a pass and {@code withPass} requests on passes in 15 s.
     */
    static Policy networkBudgets(Policy policy, BrowserCheck.Mode mode, int withoutPass, int withPass) {
        BrowserCheck check = policy.browserCheck();
        BrowserCheck.Networks networks = check.networks();
        return policy.withBrowserCheck(check.withMode(mode).withNetworks(new BrowserCheck.Networks(24, 48,
                new Policy.HitStack(15, withoutPass), new Policy.HitStack(15, withPass),
                networks.passCooldownSeconds(), networks.maxConcurrentWithoutPass(),
                networks.maxConcurrentWithPass())));
    }

    /** A browser's page navigation. */
    static Request page(String ip, String path) {
        return Request.get(ip, BROWSER, path).asNavigation();
    }

    /** A browser's script asking for data: a read, not a page. */
    static Request fetch(String ip, String path) {
        return new Request(ip, BROWSER, null, "GET", path, null, "empty", "cors", "application/json", null);
    }

    /** A pass {@code node} made for a browser at {@code ip}, good for a day. */
    final String pass(ThrottleEngine node, String ip) {
        return node.browserPasses().mint("p" + ip.replace('.', '_'), false, IpAddress.parse(ip), BROWSER,
                clock.millis() + 86_400_000L);
    }

    @Test
    @DiffersOnACluster("a browser claim's keys in its network's slot, with the network's stacks")
    void aFleetWithoutPassesMeetsItsNetworksBudgetOnceWhicheverNodesItsPagesLandOn() {
        Policy policy = networkBudgets(generous(), BrowserCheck.Mode.ADAPTIVE, 20, 40);
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 20; i++) {
            served(decide(i % 2 == 0 ? a : b, page("203.0.113." + (i + 1), "/p/" + i)));
        }

        // the network's 21st page over both nodes is asked to prove a browser runs there (not its 41st)
        Decision.Refuse challenge = refused(decide(a, page("203.0.113.21", "/p/20")), Reason.CHALLENGE);
        assertThat(challenge.dropPass()).isFalse();
        assertThat(refused(decide(b, page("203.0.113.22", "/p/21")), Reason.CHALLENGE).challengeBits())
                .isEqualTo(challenge.challengeBits());
        // what is not a page is refused for the network's budget, a form asked to load a page first
        Decision.Refuse data = refused(decide(b, fetch("203.0.113.23", "/api/items")), Reason.NETWORK_BUDGET);
        assertThat(data.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(data.detail()).isEqualTo("More than 20 requests without a pass from this network in 15 s.");
        refused(decide(a, new Request("203.0.113.24", BROWSER, null, "POST", "/comments", null, null, null, null,
                null)), Reason.PASS_REQUIRED);
        // the next /24 has a budget of its own
        served(decide(b, page("203.0.114.1", "/p/0")));
        served(decide(a, page("203.0.114.2", "/p/1")));
    }

    @Test
    @DiffersOnACluster("a browser claim's keys in its network's slot, with the network's stacks")
    void requestsOnPassesMeetTheirNetworksBudgetOnceWhicheverNodesTheyLandOn() {
        Policy policy = networkBudgets(generous(), BrowserCheck.Mode.ALWAYS, 10, 20);
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 20; i++) {
            ThrottleEngine node = i % 2 == 0 ? a : b;
            String ip = "203.0.113." + (i + 1);
            Decision.Admit admit = admitted(decide(node, page(ip, "/p/" + i).withPass(pass(node, ip))));
            assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.STRONG);
            admit.admission().complete(200, 1_000_000);
        }

        // the 21st request on a pass: a page is asked again, its pass dropped
        String late = "203.0.113.21";
        assertThat(refused(decide(b, page(late, "/p/20").withPass(pass(b, late))), Reason.CHALLENGE).dropPass())
                .isTrue();
        // what is not a page is never challenged: its client's own rules serve it, its pass buying nothing more
        String other = "203.0.113.22";
        Decision.Admit data = admitted(decide(a, fetch(other, "/api/items").withPass(pass(a, other))));
        assertThat(data.client().pass()).isEqualTo(ClientInfo.Pass.MISSING);
        data.admission().complete(200, 1_000_000);
        // the budget without a pass is another stack: the network's claims without one were never counted on it
        Decision.Admit asset = admitted(decide(b, Request.get(other, BROWSER, "/site.css")));
        asset.admission().complete(200, 1_000);
    }

    @Test
    @DiffersOnACluster("a browser claim's keys in its network's slot, with the network's stacks")
    void aPassSharedByAFleetIsHeldToOnePersonsPaceWhicheverNodesItsRequestsLandOn() {
        Policy policy = networkBudgets(generous(), BrowserCheck.Mode.ALWAYS, 100, 100); // perPass: 10 in 15 s
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 10; i++) {
            ThrottleEngine node = i % 2 == 0 ? a : b;
            Decision.Admit admit = admitted(decide(node, page("203.0.113." + (i + 1), "/p/" + i)
                    .withPass(sharedPass(node))));
            assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.STRONG);
            admit.admission().complete(200, 1_000_000);
        }

        // its 11th page over both nodes, from yet another address: dropped, asked again (not its 21st)
        Decision.Refuse again = refused(decide(b, page("203.0.113.11", "/p/10").withPass(sharedPass(b))),
                Reason.CHALLENGE);
        assertThat(again.dropPass()).isTrue();
        assertThat(again.detail()).startsWith("This pass was used faster than one person browses");
        // another pass of the same network keeps its own pace
        String ip = "203.0.113.12";
        admitted(decide(a, page(ip, "/p/11").withPass(pass(a, ip)))).admission().complete(200, 1_000_000);
    }

    /** One pass (one id) for the network 203.0.113.0/24, as {@code node} made it. */
    final String sharedPass(ThrottleEngine node) {
        return node.browserPasses().mint("fleet", false, IpAddress.parse("203.0.113.1"), BROWSER,
                clock.millis() + 86_400_000L);
    }

    @Test
    @DiffersOnACluster("a browser claim's keys in its network's slot, with the network's stacks")
    void pagesChallengedWithoutAskingTheStoreStillCountOnTheirNetworksBudget() {
        Policy policy = networkBudgets(generous(), BrowserCheck.Mode.ALWAYS, 5, 40);
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 6; i++) {
            refused(decide(i % 2 == 0 ? a : b, page("203.0.113." + (i + 1), "/p/" + i)), Reason.CHALLENGE);
        }
        Request asset = Request.get("203.0.113.9", BROWSER, "/site.css");
        served(decide(a, Request.get("203.0.114.9", BROWSER, "/site.css"))); // another network, under its budget

        // an asset weighs nothing, so it is refused only once the six pages counted (the store's next flush)
        for (ThrottleEngine node : List.of(a, b)) {
            assertThat(Await.within(Duration.ofSeconds(ANSWER_SECONDS), () -> {
                Decision decision = decide(node, asset);
                if (decision instanceof Decision.Admit admit) {
                    admit.admission().complete(200, 1_000);
                }
                return decision instanceof Decision.Refuse refusal && refusal.reason() == Reason.NETWORK_BUDGET;
            })).as("an asset of the network refused for its budget").isTrue();
        }
    }

    // ---------------------------------------------------------------- rule 4: the client's hit stack

    @Test
    @DiffersOnACluster("another address's client: another slot, maybe another master")
    void theEleventhHitInTheWindowIsRefusedOnWhicheverNodeItLands() {
        ThrottleEngine a = node("a", Policy.defaults());
        ThrottleEngine b = node("b", Policy.defaults());
        for (int i = 0; i < 10; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL));
        }

        Decision.Refuse onA = refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);
        Decision.Refuse onB = refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);

        assertThat(onA.status()).isEqualTo(503);
        assertThat(onA.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(onB.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(onA.detail()).isEqualTo("More than 10 requests in 15 s.");
        assertThat(onB.detail()).isEqualTo(onA.detail());
        assertThat(onB.rateLimit().remaining()).isZero();
        served(decide(b, "192.0.2.2", CURL)); // another client has its own stack
        served(decide(a, "192.0.2.1", WGET)); // so has another user agent of the same address
    }

    @Test
    void theWindowSlidesASecondAtATimeAndARefusalSaysWhenTheClientMayComeBack() {
        ThrottleEngine a = node("a", hitStack(Policy.defaults(), 3, 4));
        ThrottleEngine b = node("b", hitStack(Policy.defaults(), 3, 4));
        alignToASecond();
        for (int i = 0; i < 3; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL)); // second 0
        }
        passTime(Duration.ofSeconds(1));
        served(decide(b, "192.0.2.1", CURL)); // the 4th in 3 s: exactly maxHits pass

        Decision.Refuse fifth = refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);
        // the three hits of second 0 leave the window at 3.0 s; it is 1.05 s: 1.95 s, rounded up
        assertThat(fifth.retryAfterSeconds()).isEqualTo(2);
        assertThat(fifth.rateLimit()).isEqualTo(new RateLimitStatus(4, 0, 2, 3));

        passTime(Duration.ofSeconds(1));
        assertThat(refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK).retryAfterSeconds()).isEqualTo(1);
        passTime(Duration.ofSeconds(1));
        // second 0 has left; seconds 1 to 3 hold two hits of second 1 (one refused), one refused of second 2, this one
        served(decide(a, "192.0.2.1", CURL));
        Decision.Refuse again = refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);
        assertThat(again.retryAfterSeconds()).isEqualTo(1); // second 1 leaves at 4.0 s
    }

    @Test
    void aRefusedClientKeepsPushingHitsSoItStaysRefusedUntilTheyLeaveTheWindow() {
        ThrottleEngine a = node("a", hitStack(Policy.defaults(), 2, 3));
        ThrottleEngine b = node("b", hitStack(Policy.defaults(), 2, 3));
        alignToASecond();
        for (int i = 0; i < 3; i++) {
            served(decide(a, "192.0.2.1", CURL));
        }
        refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);

        passTime(Duration.ofMillis(1_000));
        for (int i = 0; i < 3; i++) {
            refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK); // counted, though refused
        }
        passTime(Duration.ofMillis(1_050));

        // the first hits have left the 2 s window; the refused ones of the second after still count, on every node
        refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);
        passTime(Duration.ofMillis(2_050));
        served(decide(b, "192.0.2.1", CURL));
    }

    @Test
    void anAdmittedRequestCarriesWhatIsLeftOfTheClientsQuota() {
        ThrottleEngine a = node("a", hitStack(Policy.defaults(), 3, 10));
        ThrottleEngine b = node("b", hitStack(Policy.defaults(), 3, 10));
        alignToASecond();
        served(decide(a, "192.0.2.1", CURL));
        passTime(Duration.ofSeconds(1));

        Decision.Admit second = admitted(decide(b, "192.0.2.1", CURL));

        // 10 allowed, 8 left, the first hit leaves the 3 s window in 1.95 s
        assertThat(second.rateLimit()).isEqualTo(new RateLimitStatus(10, 8, 2, 3));
        second.admission().complete(200, 1_000);
    }

    @Test
    void anIpv6AddressInAnySpellingIsOneClient() {
        ThrottleEngine a = node("a", hitStack(generous(), 15, 1));
        ThrottleEngine b = node("b", hitStack(generous(), 15, 1));
        served(decide(a, "2001:DB8:0:0::1", CURL));

        Decision.Refuse refusal = refused(decide(b, "2001:db8::1", CURL), Reason.HIT_STACK);

        assertThat(refusal.client().ip()).isEqualTo("2001:db8::1");
    }

    @Test
    void loweringMaxHitsRefusesAClientAboveItAtOnceAndRaisingItFreesItAtOnce() {
        ThrottleEngine a = node("a", Policy.defaults());
        ThrottleEngine b = node("b", Policy.defaults());
        for (int i = 0; i < 5; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL));
        }

        changePolicy(p -> hitStack(p, 15, 4));
        Decision.Refuse refusal = refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);
        assertThat(refusal.detail()).isEqualTo("More than 4 requests in 15 s.");
        refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);

        changePolicy(p -> hitStack(p, 15, 10));
        for (int i = 0; i < 3; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL)); // the 8th to 10th: the two refused counted
        }
        refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);
    }

    @Test
    void theWindowIsAViewOverTheLastMinuteSoShorteningItForgetsOlderHitsAndLengtheningItCountsThemAgain() {
        ThrottleEngine a = node("a", hitStack(generous(), 15, 3));
        ThrottleEngine b = node("b", hitStack(generous(), 15, 3));
        alignToASecond();
        for (int i = 0; i < 3; i++) {
            served(decide(a, "192.0.2.1", CURL));
        }
        passTime(Duration.ofSeconds(1));
        refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);

        changePolicy(p -> hitStack(p, 1, 3));
        served(decide(b, "192.0.2.1", CURL)); // second 0 is out of a 1 s window

        changePolicy(p -> hitStack(p, 15, 3));
        refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);
    }

    @Test
    @DiffersOnACluster("hits counted without asking, flushed to their master")
    void anAllowListedClientsRequestsCountOnItsOwnStackSoLeavingTheListLimitsItAtOnceOnEveryNode() {
        Policy listed = hitStack(Policy.defaults(), 15, 3)
                .withAllow(List.of(new AllowEntry(AllowType.IP, "192.0.2.1", false, "a partner")));
        ThrottleEngine a = node("a", listed);
        ThrottleEngine b = node("b", listed);
        alignToASecond();
        for (int i = 0; i < 5; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL)); // beyond its 3: exempt
        }

        changePolicy(policy -> policy.withAllow(List.of()));
        passTime(Duration.ofMillis(1_050)); // what a node counted without asking reaches the shared stack meanwhile

        refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);
        refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);
        served(decide(b, "192.0.2.1", WGET)); // only the client's own stack counted them, not its address's
    }

    // ---------------------------------------------------------------- rule 4: weights

    @Test
    void aRequestWeighsWhatItsRouteSaysAndAnAssetIsFreeButNotExempt() {
        Route export = new Route(Route.Match.PREFIX, "/export", null, List.of("POST"), List.of(), List.of(), 4, null,
                "an export is dear");
        Policy policy = Policy.defaults().withRoutes(List.of(export, Route.DEFAULTS.get(0)));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, new Request("192.0.2.1", CURL, null, "POST", "/export", null, null))); // 4
        served(decide(b, "192.0.2.1", CURL, "/export")); // a GET: the route is for POST only, so 1
        for (int i = 0; i < 20; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL, "/img/photo-" + i + ".jpg")); // 0 each
        }
        for (int i = 0; i < 5; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL, "/articles/" + i)); // 10 in all
        }
        served(decide(a, "192.0.2.1", CURL, "/logo.png")); // at the limit, not over it: a free request passes

        refused(decide(b, "192.0.2.1", CURL, "/articles/5"), Reason.HIT_STACK);
        refused(decide(a, "192.0.2.1", CURL, "/logo.png"), Reason.HIT_STACK); // over it: even a free one
    }

    // ---------------------------------------------------------------- rule 4: route limits

    @Test
    @DiffersOnACluster("a route's stack in its client's slot; another address's client in another")
    void aRouteCountsTheClientsRequestsToItOnEveryNodeAndSaysSoInOneWording() {
        Route search = route("/search", 1, new Policy.HitStack(15, 3));
        Policy policy = Policy.defaults().withRoutes(List.of(search));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        alignToASecond();
        for (int i = 0; i < 3; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL, "/search"));
        }

        Decision.Refuse onA = refused(decide(a, "192.0.2.1", CURL, "/search"), Reason.ROUTE_LIMIT);
        Decision.Refuse onB = refused(decide(b, "192.0.2.1", CURL, "/search"), Reason.ROUTE_LIMIT);

        assertThat(onA.retryAfterSeconds()).isEqualTo(15); // the route's hits of second 0 leave at 15.0 s
        assertThat(onA.detail()).isEqualTo("More than 3 requests to this part of the site in 15 s.");
        assertThat(onB.detail()).isEqualTo(onA.detail());
        served(decide(b, "192.0.2.1", CURL, "/about")); // the rest of the site is open
        served(decide(a, "192.0.2.2", CURL, "/search")); // and the route to other clients
    }

    @Test
    void eachRouteHasItsOwnStackAndARequestMatchingNoneMeetsOnlyTheClientsAndTheAddresss() {
        Policy policy = generous().withRoutes(List.of(route("/search", 1, new Policy.HitStack(3, 2)),
                route("/export", 0, new Policy.HitStack(3, 1))));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        alignToASecond();
        served(decide(a, "192.0.2.1", CURL, "/search"));
        served(decide(b, "192.0.2.1", CURL, "/search"));
        Decision.Refuse search = refused(decide(a, "192.0.2.1", CURL, "/search"), Reason.ROUTE_LIMIT);
        assertThat(search.retryAfterSeconds()).isEqualTo(3);

        // weight 0 in the client's stack, yet one request on its route's own: a route limit counts requests
        served(decide(b, "192.0.2.1", CURL, "/export"));
        refused(decide(a, "192.0.2.1", CURL, "/export"), Reason.ROUTE_LIMIT);
        for (int i = 0; i < 5; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL, "/articles/" + i));
        }

        passTime(Duration.ofSeconds(3));
        served(decide(b, "192.0.2.1", CURL, "/search"));
        served(decide(a, "192.0.2.1", CURL, "/export"));
    }

    // ---------------------------------------------------------------- rule 4: the address's hit stack

    @Test
    @DiffersOnACluster("an address's stack and its clients' in the address's slot")
    void eachUserAgentHasItsOwnStackButTheAddressCountsThemAllAcrossNodes() {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(32, 64, 15, 4, 32));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        alignToASecond();
        served(decide(a, "192.0.2.1", CURL));
        served(decide(b, "192.0.2.1", CURL));
        served(decide(a, "192.0.2.1", WGET));
        served(decide(b, "192.0.2.1", WGET));

        Decision.Refuse refusal = refused(decide(a, "192.0.2.1", PYTHON), Reason.ADDRESS_HIT_STACK);
        refused(decide(b, "192.0.2.1", CURL), Reason.ADDRESS_HIT_STACK);
        served(decide(b, "192.0.2.9", PYTHON));

        assertThat(refusal.retryAfterSeconds()).isEqualTo(15);
        assertThat(refusal.detail()).isEqualTo("More than 4 requests from this network address in 15 s.");
    }

    @Test
    @DiffersOnACluster("a prefix's addresses in the prefix's slot; the next prefix's in another")
    void anIpv4PrefixAndAnIpv6Slash64AreOneAddress() {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(24, 64, 15, 2, 32));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "198.51.100.1", CURL));
        served(decide(b, "198.51.100.2", WGET));
        refused(decide(a, "198.51.100.3", PYTHON), Reason.ADDRESS_HIT_STACK); // one /24
        served(decide(b, "198.51.101.1", CURL)); // the next /24 is someone else

        served(decide(a, "2001:db8:1:2::1", CURL));
        served(decide(b, "2001:db8:1:2:ffff::1", WGET));
        refused(decide(a, "2001:db8:1:2::3", PYTHON), Reason.ADDRESS_HIT_STACK); // one /64
        served(decide(b, "2001:db8:1:3::1", CURL)); // the next /64 is someone else
    }

    @Test
    void thePrefixesAreThePolicysSoAnIpv6Slash128IsAnAddressAlone() {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(32, 128, 15, 2, 32));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "198.51.100.1", CURL));
        served(decide(b, "198.51.100.1", WGET));
        refused(decide(a, "198.51.100.1", PYTHON), Reason.ADDRESS_HIT_STACK);
        served(decide(b, "198.51.100.2", PYTHON));

        served(decide(a, "2001:db8::1", CURL));
        served(decide(b, "2001:db8::1", WGET));
        refused(decide(a, "2001:db8::1", PYTHON), Reason.ADDRESS_HIT_STACK);
        served(decide(b, "2001:db8::2", PYTHON));
    }

    // ---------------------------------------------------------------- rule 5: concurrency

    @Test
    @DiffersOnACluster("a lease in its address's slot, given back to that master")
    void perClientConcurrencyCountsTheRequestsInFlightOnEveryNode() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2)).withRefusal(new Policy.Refusal(7, null,
                null));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit second = admitted(decide(b, "192.0.2.1", CURL));

        Decision.Refuse refusal = refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        refused(decide(b, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        served(decide(a, "192.0.2.1", WGET)); // another client of the same address
        // when a slot frees is not known: the policy's Retry-After
        assertThat(refusal.retryAfterSeconds()).isEqualTo(7);
        assertThat(refusal.detail()).isEqualTo("Already 2 requests in progress from this client.");

        second.admission().complete(200, 1_000);
        Decision.Admit third = admittedSoon(a, "192.0.2.1", CURL);
        first.admission().complete(200, 1_000);
        third.admission().complete(200, 1_000);
    }

    @Test
    void aRequestThatWeighsNothingStillHoldsItsSlotOnEveryNode() {
        Policy policy = generous().withPerClient(new Policy.PerClient(3));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit page = admitted(decide(a, "192.0.2.1", CURL, "/about"));
        Decision.Admit logo = admitted(decide(b, "192.0.2.1", CURL, "/logo.png")); // an asset: weight 0
        Decision.Admit photo = admitted(decide(a, "192.0.2.1", CURL, "/img/photo.jpg"));

        refused(decide(b, "192.0.2.1", CURL, "/about"), Reason.CLIENT_CONCURRENCY);
        refused(decide(a, "192.0.2.1", CURL, "/img/other.jpg"), Reason.CLIENT_CONCURRENCY);
        page.admission().complete(200, 1_000);
        logo.admission().complete(200, 1_000);
        photo.admission().complete(200, 1_000);
    }

    @Test
    void completingTwiceFreesOneSlotOnly() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit held = admitted(decide(b, "192.0.2.1", CURL));
        first.admission().complete(200, 1_000);
        first.admission().complete(200, 1_000);

        Decision.Admit second = admittedSoon(b, "192.0.2.1", CURL);

        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        second.admission().complete(200, 1_000);
        held.admission().complete(200, 1_000);
    }

    @Test
    void aRefusedRequestTakesNoSlot() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2))
                .withRoutes(List.of(route("/search", 1, new Policy.HitStack(15, 1))));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit search = admitted(decide(a, "192.0.2.1", CURL, "/search"));
        for (int i = 0; i < 3; i++) {
            refused(decide(i % 2 == 0 ? b : a, "192.0.2.1", CURL, "/search"), Reason.ROUTE_LIMIT);
        }

        Decision.Admit page = admitted(decide(b, "192.0.2.1", CURL, "/about")); // the second slot, free still

        refused(decide(a, "192.0.2.1", CURL, "/about"), Reason.CLIENT_CONCURRENCY);
        refused(decide(b, "192.0.2.1", CURL, "/about"), Reason.CLIENT_CONCURRENCY);
        search.admission().complete(200, 1_000);
        // the refusals for concurrency took none either: the slot given back is the only free one
        Decision.Admit again = admittedSoon(b, "192.0.2.1", CURL);
        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        page.admission().complete(200, 1_000);
        again.admission().complete(200, 1_000);
    }

    @Test
    @DiffersOnACluster("a cancelled wait's slot given back to its master; the load held from another address")
    void aRequestWaitingForTheLoadHoldsItsSlotAndCancellingItTwiceGivesItBackOnce() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2)).withLoad(new Policy.Load(1, 2, 500));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit upstream = admitted(decide(a, "198.51.100.1", CURL));
        Decision.Wait first = waiting(decide(a, "192.0.2.1", CURL), Reason.LOAD);
        Decision.Wait second = waiting(decide(a, "192.0.2.1", CURL), Reason.LOAD);
        refused(decide(b, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY); // both wait holding their slots

        first.deferral().cancel(); // the client hung up
        first.deferral().cancel();

        Decision.Wait third = waiting(decide(a, "192.0.2.1", CURL), Reason.LOAD);
        refused(decide(b, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        upstream.admission().complete(200, 1_000);
        served(second.deferral().resume());
        served(third.deferral().resume());
    }

    @Test
    void loweringMaxConcurrentCutsNoRequestOffButRefusesTheNextUntilFewerRun() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit second = admitted(decide(b, "192.0.2.1", CURL));

        changePolicy(p -> p.withPerClient(new Policy.PerClient(1)));
        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        first.admission().complete(200, 1_000); // ran to its end
        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY); // one runs: the new limit

        second.admission().complete(200, 1_000);
        served(admittedSoon(a, "192.0.2.1", CURL));
        changePolicy(p -> p.withPerClient(new Policy.PerClient(3)));
        List<Decision.Admit> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            three.add(admitted(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL)));
        }
        refused(decide(b, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        three.forEach(admit -> admit.admission().complete(200, 1_000));
    }

    @Test
    @DiffersOnACluster("an address's leases in its slot; another address's in another")
    void perAddressConcurrencyCountsEveryUserAgentOnEveryNode() {
        Policy policy = generous().withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 2))
                .withRefusal(new Policy.Refusal(7, null, null));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        admitted(decide(a, "192.0.2.1", CURL));
        admitted(decide(b, "192.0.2.1", WGET));

        Decision.Refuse refusal = refused(decide(a, "192.0.2.1", PYTHON), Reason.ADDRESS_CONCURRENCY);
        refused(decide(b, "192.0.2.1", BROWSER), Reason.ADDRESS_CONCURRENCY);
        admitted(decide(b, "192.0.2.2", PYTHON));
        assertThat(refusal.retryAfterSeconds()).isEqualTo(7);
        assertThat(refusal.detail()).isEqualTo("Already 2 requests in progress from this network address.");
    }

    @Test
    void anAddresssOnlyClientRunsAsManyAsTheAddressAllowsAgainAndAgain() {
        Policy policy = generous().withPerClient(new Policy.PerClient(8))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 10; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL)); // one at a time: never over the address's 2
        }
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit second = admitted(decide(b, "192.0.2.1", CURL));

        refused(decide(a, "192.0.2.1", CURL), Reason.ADDRESS_CONCURRENCY);
        first.admission().complete(200, 1_000);
        second.admission().complete(200, 1_000);
    }

    @Test
    void aRefusalByTheAddressGivesTheClientsSlotBack() {
        Policy policy = generous().withPerClient(new Policy.PerClient(1))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit wget = admitted(decide(b, "192.0.2.1", WGET));
        refused(decide(a, "192.0.2.1", PYTHON), Reason.ADDRESS_CONCURRENCY);
        refused(decide(b, "192.0.2.1", PYTHON), Reason.ADDRESS_CONCURRENCY);

        wget.admission().complete(200, 1_000);

        // python may run one request: had a refusal kept its slot, this would be CLIENT_CONCURRENCY
        admittedSoon(a, "192.0.2.1", PYTHON);
        refused(decide(b, "192.0.2.1", PYTHON), Reason.CLIENT_CONCURRENCY);
    }

    @Test
    void aLoneClientsRequestsInFlightStayTheAddresssWhenASecondUserAgentAppears() {
        Policy policy = generous().withPerClient(new Policy.PerClient(5))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 3));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        List<Decision.Admit> first = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            first.add(admitted(decide(a, "198.51.100.7", CURL)));
        }
        // the second user agent joins the address with two of the first one's requests running
        Decision.Admit second = admitted(decide(b, "198.51.100.7", CURL + "/second"));
        refused(decide(a, "198.51.100.7", CURL + "/third"), Reason.ADDRESS_CONCURRENCY);
        refused(decide(b, "198.51.100.7", CURL), Reason.ADDRESS_CONCURRENCY);

        // the first one's requests give their slots back to the address when they end
        first.forEach(admit -> admit.admission().complete(200, 1_000));
        admittedSoon(a, "198.51.100.7", CURL + "/third");
        admittedSoon(a, "198.51.100.7", CURL);
        refused(decide(b, "198.51.100.7", CURL + "/second"), Reason.ADDRESS_CONCURRENCY);
        second.admission().complete(200, 1_000);
        admittedSoon(b, "198.51.100.7", CURL + "/second");
    }

    // ---------------------------------------------------------------- the order of rules 3-5

    @Test
    void whenSeveralRulesWouldRefuseTheFirstInTheOrderWins() {
        // one client, alone on its address, is over every limit of rules 4 and 5 at once; the operator raises them
        // one by one, and the refusal moves down the order: client, route, address hit stacks, client, address
        // concurrency
        Policy policy = hitStack(Policy.defaults(), 15, 2).withPerClient(new Policy.PerClient(1))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 2, 1))
                .withRoutes(List.of(route("/search", 1, new Policy.HitStack(15, 2))));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit running = admitted(decide(a, "192.0.2.1", CURL, "/search"));
        refused(decide(b, "192.0.2.1", CURL, "/search"), Reason.CLIENT_CONCURRENCY);

        refused(decide(a, "192.0.2.1", CURL, "/search"), Reason.HIT_STACK);
        changePolicy(p -> hitStack(p, 15, 100));
        refused(decide(b, "192.0.2.1", CURL, "/search"), Reason.ROUTE_LIMIT);
        changePolicy(p -> p.withRoutes(List.of(route("/search", 1, new Policy.HitStack(15, 100)))));
        refused(decide(a, "192.0.2.1", CURL, "/search"), Reason.ADDRESS_HIT_STACK);
        changePolicy(p -> p.withPerAddress(new Policy.PerAddress(32, 64, 15, 100, 1)));
        refused(decide(b, "192.0.2.1", CURL, "/search"), Reason.CLIENT_CONCURRENCY);
        changePolicy(p -> p.withPerClient(new Policy.PerClient(8)));
        refused(decide(a, "192.0.2.1", CURL, "/search"), Reason.ADDRESS_CONCURRENCY);
        changePolicy(p -> p.withPerAddress(new Policy.PerAddress(32, 64, 15, 100, 32)));
        served(decide(b, "192.0.2.1", CURL, "/search"));
        running.admission().complete(200, 1_000);
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlersSpacingIsJudgedBeforeItsHitStack() {
        ThrottleEngine a = node("a", hitStack(Policy.defaults(), 15, 1));
        ThrottleEngine b = node("b", hitStack(Policy.defaults(), 15, 1));
        served(decide(a, "66.249.66.1", GOOGLEBOT));

        refused(decide(b, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
        refused(decide(a, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
    }

    // ---------------------------------------------------------------- rule 3: crawler spacing

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerServedOnOneNodeIsSpacedOnTheOthersWhateverAddressItUses() {
        ThrottleEngine a = node("a", Policy.defaults());
        ThrottleEngine b = node("b", Policy.defaults());
        served(decide(a, "66.249.66.1", GOOGLEBOT));

        Decision.Refuse again = refused(decide(b, "66.249.66.2", GOOGLEBOT), Reason.CRAWLER_SPACING);
        assertThat(again.retryAfterSeconds()).isBetween(29L, 30L);
        assertThat(again.detail()).isEqualTo("This crawler was served less than 30 s ago.");
        Decision.Refuse other = refused(decide(b, "157.55.39.1", BINGBOT), Reason.CRAWLERS_BUSY);
        assertThat(other.retryAfterSeconds()).isBetween(1L, 2L);
        assertThat(other.detail()).isEqualTo("Another crawler was served less than 2 s ago.");
        // spacing is for crawlers only
        served(decide(b, "192.0.2.1", CURL));
        served(decide(a, "192.0.2.1", CURL));
        served(decide(b, "192.0.2.2", BROWSER));
        served(decide(a, "192.0.2.2", BROWSER));
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerIsServedAgainOnceItsGapHasPassed() {
        Policy policy = Policy.defaults().withCrawlers(new Policy.Crawlers(2, 0, true));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        alignToASecond();
        served(decide(a, "66.249.66.1", GOOGLEBOT));
        passTime(Duration.ofSeconds(1));

        Decision.Refuse early = refused(decide(b, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
        assertThat(early.retryAfterSeconds()).isEqualTo(1);
        served(decide(a, "157.55.39.1", BINGBOT)); // another crawler has its own gap

        passTime(Duration.ofSeconds(1));
        served(decide(b, "66.249.66.1", GOOGLEBOT));
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void anyCrawlerMayComeOnceTheAllCrawlersGapHasPassed() {
        Policy policy = Policy.defaults().withCrawlers(new Policy.Crawlers(30, 2, false));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "66.249.66.1", GOOGLEBOT));
        refused(decide(b, "157.55.39.1", BINGBOT), Reason.CRAWLERS_BUSY);

        passTime(Duration.ofMillis(2_000));

        served(decide(b, "157.55.39.1", BINGBOT));
        refused(decide(a, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerRefusedByItsHitStackHoldsBackNoOtherCrawler() {
        Policy policy = hitStack(Policy.defaults(), 15, 1).withCrawlers(new Policy.Crawlers(0, 2, true));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "157.55.39.1", BINGBOT));
        passTime(Duration.ofSeconds(2));

        refused(decide(b, "157.55.39.1", BINGBOT), Reason.HIT_STACK); // not served: it took no turn

        served(decide(a, "66.249.66.1", GOOGLEBOT));
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerRefusedByALaterRuleGivesItsTurnBack() {
        // the upstream is full (a browser holds its one place) and nobody may wait: a crawler passing rules 3-5 is
        // refused by load, and its turn must not count
        Policy policy = Policy.defaults().withLoad(new Policy.Load(1, 0, 500));
        ThrottleEngine a = node("a", policy);
        Decision.Admit browser = admitted(decide(a, "192.0.2.7", BROWSER));
        refused(decide(a, "66.249.66.1", GOOGLEBOT), Reason.LOAD);
        browser.admission().complete(200, 1_000);

        served(decide(a, "66.249.66.2", GOOGLEBOT));
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerRefusedAfterWaitingForTheLoadGivesItsTurnBack() {
        Policy policy = Policy.defaults().withLoad(new Policy.Load(2, 1, 500));
        ThrottleEngine a = node("a", policy);
        List<Decision.Admit> upstream = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            upstream.add(admitted(decide(a, "198.51.100." + i, CURL)));
        }
        Decision.Wait wait = waiting(decide(a, "66.249.66.1", GOOGLEBOT), Reason.LOAD);
        passTime(Duration.ofMillis(500));
        refused(wait.deferral().resume(), Reason.LOAD);

        changePolicy(p -> p.withLoad(new Policy.Load(100, 1, 500)));
        served(admittedSoon(a, "157.55.39.1", BINGBOT));
        upstream.forEach(admit -> admit.admission().complete(200, 1_000));
    }

    @Test
    @DiffersOnACluster("a crawler's keys in the crawlers' slot, apart from its address's")
    void aCrawlerThatWasNotServedAfterAllHoldsBackNeitherItselfNorAnotherCrawler() {
        // Googlebot passes rules 3-5 and waits for the load, holding its own gap and the all-crawlers gap; it hangs
        // up, so it was not served: Googlebot from its other address, and any other crawler, may come at once, not
        // 30 s later. (On the node that gave the turn back: another node that remembered its refusal does not see
        // it, docs/architecture-cluster.md, "None for a client known refused".)
        Policy policy = Policy.defaults().withCrawlers(new Policy.Crawlers(30, 30, true))
                .withLoad(new Policy.Load(1, 1, 500));
        ThrottleEngine a = node("a", policy);
        Decision.Admit upstream = admitted(decide(a, "198.51.100.1", CURL));
        Decision.Wait first = waiting(decide(a, "66.249.66.1", GOOGLEBOT), Reason.LOAD);
        refused(decide(a, "66.249.66.2", GOOGLEBOT), Reason.CRAWLER_SPACING);
        refused(decide(a, "157.55.39.1", BINGBOT), Reason.CRAWLERS_BUSY);

        first.deferral().cancel();
        upstream.admission().complete(200, 1_000);

        served(admittedSoon(a, "66.249.66.2", GOOGLEBOT));
    }

    /** An {@link InstantSource} the test moves. */
    static final class MovableClock implements InstantSource {
        private final AtomicLong millis;

        MovableClock(Instant start) {
            this.millis = new AtomicLong(start.toEpochMilli());
        }

        void advance(Duration duration) {
            millis.addAndGet(duration.toMillis());
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public long millis() {
            return millis.get();
        }
    }
}
