package io.sluice.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Decision;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The per-client rules (hit stacks, per-client and per-address concurrency, crawler spacing) as every store must
 * keep them, written once and run against each: the single node's local store, the cluster's Redis store with
 * several nodes sharing one Redis, and a cluster node deciding alone (its Redis unavailable, one node seen).
 * "Node a" and "node b" are two front ends of one cluster; for a single node they are the same engine, and the
 * rules read the same: the 11th hit is refused on whichever node it lands.
 *
 * <p>The engines' time is an injected clock; Redis judges windows on its own clock, which is real, so the
 * windows here are short and {@link #passTime} both waits and moves the clock for a store that needs it.
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
    final MovableClock clock = new MovableClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .plusMillis(50));

    /** The node called {@code name} (created with {@code policy} on first use; every node shares one policy). */
    abstract ThrottleEngine node(String name, Policy policy);

    /** Time goes by for the engines and for the store. */
    abstract void passTime(Duration duration);

    /** For a store on a real clock, waits for the start of a second, so a test's hits fall in known buckets. */
    abstract void alignToASecond();

    /** The decision, once made (a pending one is awaited). */
    static Decision decide(ThrottleEngine node, String ip, String agent) {
        return decide(node, Request.direct(ip, agent));
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

    static void served(Decision decision) {
        admitted(decision).admission().complete(200, 1_000_000);
    }

    /**
     * Admitted once the slot another node gave back is free: a release travels on its node's own connection,
     * so another node's next request may reach the store just before it.
     */
    static Decision.Admit admittedSoon(ThrottleEngine node, String ip, String agent) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_SECONDS);
        while (true) {
            Decision decision = decide(node, ip, agent);
            if (decision instanceof Decision.Admit admit || System.nanoTime() > deadline) {
                return admitted(decision);
            }
            pause(10);
        }
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

    @Test
    void theEleventhHitInTheWindowIsRefusedOnWhicheverNodeItLands() {
        ThrottleEngine a = node("a", Policy.defaults());
        ThrottleEngine b = node("b", Policy.defaults());
        for (int i = 0; i < 10; i++) {
            served(decide(i % 2 == 0 ? a : b, "192.0.2.1", CURL));
        }

        Decision.Refuse onA = refused(decide(a, "192.0.2.1", CURL), Reason.HIT_STACK);
        Decision.Refuse onB = refused(decide(b, "192.0.2.1", CURL), Reason.HIT_STACK);

        assertThat(onA.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(onB.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(onB.rateLimit().remaining()).isZero();
        served(decide(b, "192.0.2.2", CURL)); // another client has its own stack
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
    void eachUserAgentHasItsOwnStackButTheAddressCountsThemAllAcrossNodes() {
        Policy policy = Policy.defaults().withPerAddress(new Policy.PerAddress(32, 64, 15, 4, 32));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "192.0.2.1", CURL));
        served(decide(b, "192.0.2.1", CURL));
        served(decide(a, "192.0.2.1", WGET));
        served(decide(b, "192.0.2.1", WGET));

        refused(decide(a, "192.0.2.1", PYTHON), Reason.ADDRESS_HIT_STACK);
        refused(decide(b, "192.0.2.1", CURL), Reason.ADDRESS_HIT_STACK);
        served(decide(b, "192.0.2.9", PYTHON));
    }

    @Test
    void aRouteCountsTheClientsRequestsToItOnEveryNodeAndSaysSoInOneWording() {
        Route search = new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(), 1,
                new Policy.HitStack(15, 3), null);
        Policy policy = Policy.defaults().withRoutes(List.of(search));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        for (int i = 0; i < 3; i++) {
            served(decide(i % 2 == 0 ? a : b, Request.get("192.0.2.1", CURL, "/search")));
        }

        Decision.Refuse onA = refused(decide(a, Request.get("192.0.2.1", CURL, "/search")), Reason.ROUTE_LIMIT);
        Decision.Refuse onB = refused(decide(b, Request.get("192.0.2.1", CURL, "/search")), Reason.ROUTE_LIMIT);

        assertThat(onA.retryAfterSeconds()).isBetween(1L, 15L);
        assertThat(onA.detail()).isEqualTo("More than 3 requests to this part of the site in 15 s.");
        assertThat(onB.detail()).isEqualTo(onA.detail());
        served(decide(b, Request.get("192.0.2.1", CURL, "/about"))); // the rest of the site is open
        served(decide(a, Request.get("192.0.2.2", CURL, "/search"))); // and the route to other clients
    }

    @Test
    void perClientConcurrencyCountsTheRequestsInFlightOnEveryNode() {
        Policy policy = generous().withPerClient(new Policy.PerClient(2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        Decision.Admit second = admitted(decide(b, "192.0.2.1", CURL));

        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        refused(decide(b, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        served(decide(a, "192.0.2.1", WGET)); // another client of the same address

        second.admission().complete(200, 1_000);
        Decision.Admit third = admittedSoon(a, "192.0.2.1", CURL);
        first.admission().complete(200, 1_000);
        third.admission().complete(200, 1_000);
    }

    @Test
    void completingTwiceFreesOneSlotOnly() {
        Policy policy = generous().withPerClient(new Policy.PerClient(1));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        Decision.Admit first = admitted(decide(a, "192.0.2.1", CURL));
        first.admission().complete(200, 1_000);
        first.admission().complete(200, 1_000);

        Decision.Admit second = admittedSoon(b, "192.0.2.1", CURL);

        refused(decide(a, "192.0.2.1", CURL), Reason.CLIENT_CONCURRENCY);
        second.admission().complete(200, 1_000);
    }

    @Test
    void perAddressConcurrencyCountsEveryUserAgentOnEveryNode() {
        Policy policy = generous().withPerAddress(new Policy.PerAddress(32, 64, 15, 1_000, 2));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        admitted(decide(a, "192.0.2.1", CURL));
        admitted(decide(b, "192.0.2.1", WGET));

        refused(decide(a, "192.0.2.1", PYTHON), Reason.ADDRESS_CONCURRENCY);
        refused(decide(b, "192.0.2.1", BROWSER), Reason.ADDRESS_CONCURRENCY);
        admitted(decide(b, "192.0.2.2", PYTHON));
    }

    @Test
    void aCrawlerServedOnOneNodeIsSpacedOnTheOthersWhateverAddressItUses() {
        ThrottleEngine a = node("a", Policy.defaults());
        ThrottleEngine b = node("b", Policy.defaults());
        served(decide(a, "66.249.66.1", GOOGLEBOT));

        Decision.Refuse again = refused(decide(b, "66.249.66.2", GOOGLEBOT), Reason.CRAWLER_SPACING);
        assertThat(again.retryAfterSeconds()).isBetween(29L, 30L);
        Decision.Refuse other = refused(decide(b, "157.55.39.1", BINGBOT), Reason.CRAWLERS_BUSY);
        assertThat(other.retryAfterSeconds()).isBetween(1L, 2L);
        served(decide(b, "192.0.2.1", CURL)); // spacing is for crawlers only
    }

    @Test
    void anyCrawlerMayComeOnceTheAllCrawlersGapHasPassed() {
        Policy policy = Policy.defaults().withCrawlers(new Policy.Crawlers(30, 1, false));
        ThrottleEngine a = node("a", policy);
        ThrottleEngine b = node("b", policy);
        served(decide(a, "66.249.66.1", GOOGLEBOT));
        refused(decide(b, "157.55.39.1", BINGBOT), Reason.CRAWLERS_BUSY);

        passTime(Duration.ofMillis(1_100));

        served(decide(b, "157.55.39.1", BINGBOT));
        refused(decide(a, "66.249.66.1", GOOGLEBOT), Reason.CRAWLER_SPACING);
    }

    @Test
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
