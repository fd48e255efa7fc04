package io.sluice.engine;

import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static io.sluice.engine.EngineFixture.waiting;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.net.AsnTable;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.store.ClientKey;
import io.sluice.engine.store.SharedClientStore;
import io.sluice.engine.telemetry.ShadowSummary;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The engine's path for a shared store (cluster mode), against a store the test answers by hand: a decision
 * that needs the store is pending until it answers, holding no thread; a refusal is the rule's; a store that
 * cannot answer leaves the node deciding alone with its limits divided by the nodes it last saw. The rules
 * themselves are specified against the real stores in embedded-server's ClientStoreSpecification.
 */
class SharedStorePathTest {
    private final ManualClock clock = ManualClock.at("2026-01-01T10:00:00Z");
    private final HandAnsweredStore store = new HandAnsweredStore();

    private ThrottleEngine engine(Policy policy) {
        return new ThrottleEngine(EngineConfig.defaults(), clock, policy, new FakeClassifier(), null, store);
    }

    private static Decision decide(ThrottleEngine engine, String ip) {
        return engine.decide(Request.direct(ip, CURL));
    }

    private static Decision answer(Decision decision) {
        assertThat(decision).isInstanceOf(Decision.Pending.class);
        CompletableFuture<Decision> made = ((Decision.Pending) decision).decision().toCompletableFuture();
        assertThat(made).isDone();
        return made.join();
    }

    @Test
    void aDecisionThatNeedsTheStoreIsPendingUntilItAnswersAndTheLeaseGoesBackOnceServed() {
        ThrottleEngine engine = engine(Policy.defaults());

        Decision decision = decide(engine, "192.0.2.1");

        assertThat(decision).isInstanceOf(Decision.Pending.class);
        assertThat(((Decision.Pending) decision).decision().toCompletableFuture()).isNotDone();
        SharedClientStore.Ask ask = store.asks.get(0);
        assertThat(ask.clientLimits().maxHits()).isEqualTo(10);
        assertThat(ask.maxConcurrent()).isEqualTo(8);
        assertThat(ask.crawler()).isNull();
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(null, 0, 3, 14_000, "lease-1"));
        Decision.Admit admit = admitted(answer(decision));
        assertThat(admit.rateLimit().remaining()).isEqualTo(7);
        assertThat(engine.inFlight()).isEqualTo(1);

        admit.admission().complete(200, 1_000);
        admit.admission().complete(200, 1_000);
        assertThat(store.released).containsExactly("lease-1 served");
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void aRefusalByTheStoreIsTheRulesOwnWithItsRetryAfter() {
        ThrottleEngine engine = engine(Policy.defaults());

        Decision decision = decide(engine, "192.0.2.1");
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(Reason.HIT_STACK, 4_200, 11, 9_000, null));

        Decision.Refuse refusal = refused(answer(decision), Reason.HIT_STACK);
        assertThat(refusal.retryAfterSeconds()).isEqualTo(5);
        assertThat(refusal.detail()).isEqualTo("More than 10 requests in 15 s.");
    }

    @Test
    void anAnswerTheStoreAlreadyHasIsADecisionAtOnce() {
        ThrottleEngine engine = engine(Policy.defaults());
        store.answerAtOnce = new SharedClientStore.Verdict<>(Reason.HIT_STACK, 1_000, 12, 1_000, null);

        refused(decide(engine, "192.0.2.1"), Reason.HIT_STACK);
    }

    @Test
    void whileTheStoreIsUnavailableTheNodeDecidesAloneWithLimitsDividedByTheNodesItLastSaw() {
        ThrottleEngine engine = engine(Policy.defaults().withPerClient(new Policy.PerClient(3)));
        store.available = false;
        store.nodes = 3; // maxHits 10 / 3 -> 4 on this node; maxConcurrent 3 / 3 -> 1

        Decision.Admit first = admitted(decide(engine, "192.0.2.1"));
        refused(decide(engine, "192.0.2.1"), Reason.CLIENT_CONCURRENCY);
        first.admission().complete(200, 1_000);
        served(decide(engine, "192.0.2.1"));
        served(decide(engine, "192.0.2.1"));
        Decision.Refuse fifth = refused(decide(engine, "192.0.2.1"), Reason.HIT_STACK);

        assertThat(fifth.detail()).isEqualTo("More than 4 requests in 15 s."); // what this node enforces alone
        assertThat(store.asks).isEmpty();
    }

    @Test
    void anAnswerThatNeverCameIsDecidedAloneWhenTheStoreGivesUp() {
        ThrottleEngine engine = engine(Policy.defaults());

        Decision decision = decide(engine, "192.0.2.1");
        store.answers.get(0).completeExceptionally(new TimeoutException("deadline"));

        Decision.Admit admit = admitted(answer(decision));
        admit.admission().complete(200, 1_000);
        assertThat(store.released).isEmpty();
        assertThat(engine.inFlight()).isZero();
    }

    // ---------------------------------------------------------------- the browser check's network budgets

    private static Request page(String ip) {
        return Request.get(ip, EngineFixture.BROWSER, "/articles/1").asNavigation();
    }

    private static Policy checking(BrowserCheck.Mode mode) {
        return Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS.withMode(mode));
    }

    @Test
    void aBrowserClaimsNetworkIsAskedWithItsClientAndAnOverBudgetAnswerIsTheChecks() {
        ThrottleEngine engine = engine(checking(BrowserCheck.Mode.ADAPTIVE));

        Decision decision = engine.decide(page("192.0.2.77"));

        SharedClientStore.Ask ask = store.asks.get(0);
        assertThat(ask.network().ip()).isEqualTo("192.0.2.0");
        assertThat(ask.network().prefixBits()).isEqualTo((byte) 24);
        assertThat(ask.networkBudget()).isEqualTo(new SharedClientStore.NetworkBudget(false,
                BrowserCheck.DEFAULTS.networks().withoutPass(), true));
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(Reason.NETWORK_BUDGET, 3_000, 0, 0, null, true,
                true, false));
        Decision.Refuse challenge = refused(answer(decision), Reason.CHALLENGE);
        assertThat(challenge.dropPass()).isFalse();
        assertThat(engine.snapshot().browserCheck().challenged()).isEqualTo(1);
        assertThat(engine.inFlight()).isZero();
    }

    @Test
    void aPageTheCheckAsksForAnywayIsChallengedAtOnceAndItsNetworksHitCountedForTheStore() {
        ThrottleEngine engine = engine(checking(BrowserCheck.Mode.ALWAYS));

        refused(engine.decide(page("192.0.2.77")), Reason.CHALLENGE);

        assertThat(store.asks).isEmpty();
        assertThat(store.counted).containsExactly("192.0.2.0/24 1");
    }

    @Test
    void aPassOverItsNetworksBudgetOnARequestThatIsNotAPageIsServedAsWithoutOne() {
        ThrottleEngine engine = engine(checking(BrowserCheck.Mode.ALWAYS));
        String pass = engine.browserPasses().mint("p1", false, IpAddress.parse("192.0.2.77"), EngineFixture.BROWSER,
                clock.millis() + 86_400_000L);
        Request data = new Request("192.0.2.77", EngineFixture.BROWSER, null, "GET", "/api/items", null, "empty",
                "cors", "application/json", pass);

        Decision decision = engine.decide(data);

        SharedClientStore.NetworkBudget budget = store.asks.get(0).networkBudget();
        assertThat(budget.onPass()).isTrue();
        assertThat(budget.pass()).as("the pass's own stack asked with its network's").isEqualTo("p1");
        assertThat(budget.perPass()).isEqualTo(BrowserCheck.PER_PASS);
        assertThat(budget.decisive()).as("not a page: never challenged").isFalse();
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(null, 0, 1, 15_000, "lease-1", true, true,
                false));
        Decision.Admit admit = admitted(answer(decision));
        assertThat(admit.client().pass()).isEqualTo(ClientInfo.Pass.MISSING);
        admit.admission().complete(200, 1_000);
        assertThat(store.released).containsExactly("lease-1 served");
    }

    @Test
    void aNodeDecidingAloneHoldsANetworkToItsShareOfTheBudget() {
        Policy policy = Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS.withNetworks(
                new BrowserCheck.Networks(24, 48, new Policy.HitStack(15, 6), null, null, null, null)));
        ThrottleEngine engine = engine(policy);
        store.available = false;
        store.nodes = 2; // 6 claims without a pass per /24 in the cluster: 3 on this node

        for (int i = 1; i <= 3; i++) {
            served(engine.decide(page("192.0.2." + i)));
        }
        refused(engine.decide(page("192.0.2.4")), Reason.CHALLENGE);
        served(engine.decide(page("192.0.3.1")));
        assertThat(store.asks).isEmpty();
    }

    @Test
    void anAsThePolicyNamesIsAskedAtOnceAndAnAsOverThisNodesBudgetIsAskedToo() throws IOException {
        ThrottleEngine engine = engine(Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS
                .withAlwaysChallengeAsns(List.of(16509L))
                .withNetworks(BrowserCheck.DEFAULTS.networks().withAsnWithoutPass(new Policy.HitStack(15, 2)))));
        engine.useAsnTable(AsnTable.parse(new StringReader("3.5.0.0\t3.5.255.255\t16509\tUS\tAMAZON-02\n"
                + "5.6.7.0\t5.6.7.255\t3320\tDE\tDTAG\n"), "ip2asn-v4.tsv"));

        refused(engine.decide(page("3.5.1.7")), Reason.CHALLENGE);
        assertThat(store.asks).as("asked anyway: answered without the store").isEmpty();

        store.available = false; // the budget per AS is each node's own, whatever the store says
        served(engine.decide(page("5.6.7.1")));
        served(engine.decide(page("5.6.7.2")));
        refused(engine.decide(page("5.6.7.3")), Reason.CHALLENGE);
    }

    @Test
    void aRequestTheStoreAdmittedButLoadRefusedGivesItsLeaseBackUnserved() {
        ThrottleEngine engine = engine(Policy.defaults().withLoad(new Policy.Load(1, 0, 500)));
        Decision first = decide(engine, "192.0.2.1");
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(null, 0, 1, 15_000, "lease-1"));
        admitted(answer(first));

        Decision second = decide(engine, "192.0.2.2");
        store.answers.get(1).complete(new SharedClientStore.Verdict<>(null, 0, 1, 15_000, "lease-2"));

        refused(answer(second), Reason.LOAD);
        assertThat(store.released).containsExactly("lease-2 not served");
    }

    @Test
    void aCrawlerAsksWithItsGapsAndItsListEntry() {
        ThrottleEngine engine = engine(Policy.defaults());

        engine.decide(Request.direct("66.249.66.1", "Googlebot/2.1")); // one of Google's published addresses

        SharedClientStore.Ask ask = store.asks.get(0);
        assertThat(ask.crawler()).isEqualTo("Googlebot");
        assertThat(ask.perCrawlerMillis()).isEqualTo(30_000);
        assertThat(ask.allCrawlersMillis()).isEqualTo(2_000);
    }

    @Test
    void theTapSeesThePendingDecisionOnceItIsMade() {
        ThrottleEngine engine = engine(Policy.defaults());
        List<Decision> seen = new ArrayList<>();
        engine.tap(new DecisionTap() {
            @Override
            public Decision tapped(Request request, long atMillis, Decision decision) {
                seen.add(decision);
                return decision;
            }

            @Override
            public ShadowSummary summary(long nowMillis) {
                return null;
            }
        });

        Decision decision = decide(engine, "192.0.2.1");
        assertThat(seen).isEmpty();
        store.answers.get(0).complete(new SharedClientStore.Verdict<>(Reason.HIT_STACK, 1_000, 11, 1_000, null));

        assertThat(seen).containsExactly(answer(decision));
    }

    @Test
    void loadDeferralCountsTheRequestsInFlightOnTheOtherNodes() {
        ThrottleEngine single = new ThrottleEngine(EngineConfig.defaults(), clock,
                Policy.defaults().withLoad(new Policy.Load(3, 5, 500)), new FakeClassifier());
        single.reportLoadElsewhere(2);
        served(decide(single, "192.0.2.1")); // 0 here + 2 elsewhere < 3
        Decision.Admit holding = admitted(decide(single, "192.0.2.2"));

        waiting(decide(single, "192.0.2.3"), Reason.LOAD); // 1 + 2 = 3
        single.reportLoadElsewhere(1);
        served(decide(single, "192.0.2.4"));
        holding.admission().complete(200, 1_000);
    }

    /** A store whose every answer the test gives by hand. */
    private static final class HandAnsweredStore implements SharedClientStore<String> {
        final List<Ask> asks = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Verdict<String>>> answers = new CopyOnWriteArrayList<>();
        final List<String> released = new CopyOnWriteArrayList<>();
        final List<String> counted = new CopyOnWriteArrayList<>();
        volatile boolean available = true;
        volatile int nodes = 1;
        volatile Verdict<String> answerAtOnce;

        @Override
        public boolean available() {
            return available;
        }

        @Override
        public int nodes() {
            return nodes;
        }

        @Override
        public CompletableFuture<Verdict<String>> admit(Ask ask) {
            if (answerAtOnce != null) {
                return CompletableFuture.completedFuture(answerAtOnce);
            }
            asks.add(ask);
            CompletableFuture<Verdict<String>> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        @Override
        public void release(String lease, boolean served) {
            released.add(lease + (served ? " served" : " not served"));
        }

        @Override
        public void countExempt(Ask ask) {
            // keeps no hit stacks
        }

        @Override
        public void countNetwork(ClientKey address, ClientKey network, boolean onPass, int weight) {
            counted.add(network.ip() + "/" + (network.prefixBits() & 0xFF) + (onPass ? " on a pass " : " ") + weight);
        }
    }
}
