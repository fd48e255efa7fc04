package io.sluice.engine.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.engine.Decision;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.ManualClock;
import io.sluice.engine.Reason;
import io.sluice.engine.Request;
import io.sluice.engine.RequestClass;
import io.sluice.engine.RequestCost;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.policy.PolicyValidationException;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.ShadowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The shadow on live traffic, on an injected clock; the run is fed by hand ({@code drain}). */
class LiveShadowTest {
    static final String COPIER = "python-requests/2.32.3";
    static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0";
    static final String GOOGLEBOT = "Googlebot/2.1";
    static final EngineConfig CONFIG = EngineConfig.defaults();

    private final ManualClock clock = ManualClock.at("2026-03-01T10:00:00Z");

    private ThrottleEngine engine(Policy policy) {
        return new ThrottleEngine(CONFIG, clock, policy, new TestClassifier());
    }

    private LiveShadow shadowOf(ThrottleEngine live) {
        return new LiveShadow(live, CONFIG, new TestClassifier(), null, clock, false);
    }

    private static Policy withMaxHits(int maxHits) {
        return Policy.defaults().withHitStack(new Policy.HitStack(15, maxHits));
    }

    /** One request per step from a mix of clients: a copier hammering, browsers reading, a crawler. */
    private static List<Request> traffic(Random random, int steps) {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            int pick = random.nextInt(10);
            if (pick < 5) {
                requests.add(Request.direct("203.0.113.7", COPIER));
            } else if (pick < 9) {
                requests.add(Request.direct("198.51.100." + (1 + random.nextInt(4)), FIREFOX));
            } else {
                requests.add(Request.direct("66.249.66.1", GOOGLEBOT));
            }
        }
        return requests;
    }

    private static Decision serve(Decision decision) {
        if (decision instanceof Decision.Admit admit) {
            admit.admission().complete(200, 1_000_000);
        }
        return decision;
    }

    private static String key(Decision decision) {
        return decision.client().ip() + "|" + decision.client().userAgent();
    }

    @Test
    void aCandidateWithLowerMaxHitsCountsExactlyWhatThatLimitRefuses() {
        ThrottleEngine live = engine(withMaxHits(10));
        LiveShadow shadow = shadowOf(live);
        shadow.install(withMaxHits(6));
        // the reference: an engine that really runs at 6, fed the same requests at the same times
        ThrottleEngine atSix = engine(withMaxHits(6));
        Map<String, Map<String, Long>> outcomesAtSix = new TreeMap<>();
        Map<String, Map<String, Long>> outcomesLive = new TreeMap<>();
        Random random = new Random(42);
        for (Request request : traffic(random, 400)) {
            clock.advanceMillis(50 + random.nextInt(200));
            Decision reference = serve(atSix.decide(request));
            Decision actual = serve(live.decide(request));
            outcomesAtSix.computeIfAbsent(key(reference), k -> new TreeMap<>())
                    .merge(Outcome.of(reference, false).label(), 1L, Long::sum);
            outcomesLive.computeIfAbsent(key(actual), k -> new TreeMap<>())
                    .merge(Outcome.of(actual, false).label(), 1L, Long::sum);
        }
        shadow.drain();

        WhatIfReport report = shadow.report(100);
        assertThat(report.requests()).isEqualTo(400);
        assertThat(report.candidateRefused()).isGreaterThan(report.liveRefused());
        Map<String, Map<String, Long>> listedCandidate = new TreeMap<>();
        Map<String, Map<String, Long>> listedLive = new TreeMap<>();
        for (WhatIfReport.ClientDifference client : report.clients()) {
            listedCandidate.put(client.ip() + "|" + client.userAgent(), new TreeMap<>(client.candidate()));
            listedLive.put(client.ip() + "|" + client.userAgent(), new TreeMap<>(client.live()));
        }
        // exactly the clients whose outcomes differ at 6, each with exactly the outcomes it got at 6
        Map<String, Map<String, Long>> differingAtSix = new TreeMap<>(outcomesAtSix);
        differingAtSix.keySet().removeIf(who -> outcomesAtSix.get(who).equals(outcomesLive.get(who)));
        assertThat(listedCandidate).isEqualTo(differingAtSix).isNotEmpty();
        Map<String, Map<String, Long>> differingLive = new TreeMap<>(outcomesLive);
        differingLive.keySet().retainAll(differingAtSix.keySet());
        assertThat(listedLive).isEqualTo(differingLive);
        assertThat(report.candidateRefused()).isEqualTo(refusals(outcomesAtSix));
        assertThat(report.liveRefused()).isEqualTo(refusals(outcomesLive));
        assertThat(listedCandidate).containsKey("203.0.113.7|" + COPIER);
    }

    private static long refusals(Map<String, Map<String, Long>> outcomes) {
        return outcomes.values().stream().flatMap(m -> m.entrySet().stream())
                .filter(e -> e.getKey().startsWith("REFUSE:")).mapToLong(Map.Entry::getValue).sum();
    }

    @Test
    void aCandidateBrowserCheckCountsWhoItWouldAskAndNotWhoHoldsAPass() {
        ThrottleEngine live = engine(Policy.defaults());
        LiveShadow shadow = shadowOf(live);
        shadow.install(Policy.defaults().withBrowserCheck(BrowserCheck.DEFAULTS.withMode(BrowserCheck.Mode.ALWAYS)));
        String pass = live.browserPasses().mint("holder", false, IpAddress.parse("198.51.100.9"), FIREFOX,
                clock.millis() + 86_400_000L);
        for (int i = 0; i < 3; i++) {
            clock.advanceMillis(1_000);
            serve(live.decide(Request.get("198.51.100.1", FIREFOX, "/page/" + i).asNavigation()));
            serve(live.decide(Request.get("198.51.100.9", FIREFOX, "/page/" + i).asNavigation().withPass(pass)));
        }
        shadow.drain();

        WhatIfReport report = shadow.report(100);
        assertThat(report.liveRefused()).isZero();
        assertThat(report.candidateRefused()).as("the three pages without a pass").isEqualTo(3);
        assertThat(report.outcomes()).contains(new WhatIfReport.OutcomeRow(RequestClass.BROWSER,
                "REFUSE:CHALLENGE", 0, 3));
        assertThat(report.clients()).extracting(WhatIfReport.ClientDifference::ip).containsExactly("198.51.100.1");
    }

    @Test
    void aShadowNeverChangesALiveOutcomeOrLiveState() throws Exception {
        // a tight load limit so the live engine also defers (waits are wrapped by the shadow)
        Policy livePolicy = withMaxHits(8).withLoad(new Policy.Load(2, 3, 500));
        ThrottleEngine watched = engine(livePolicy);
        ThrottleEngine alone = engine(livePolicy);
        LiveShadow shadow = shadowOf(watched);
        // a candidate that would refuse nearly everything
        shadow.install(withMaxHits(1).withPerClient(new Policy.PerClient(1))
                .withPause(new Policy.Pause(false, List.of(RequestClass.BOT))));
        Random random = new Random(7);
        List<Decision.Admission> runningWatched = new ArrayList<>();
        List<Decision.Admission> runningAlone = new ArrayList<>();
        for (Request request : traffic(random, 300)) {
            clock.advanceMillis(random.nextInt(120));
            Decision a = watched.decide(request);
            Decision b = alone.decide(request);
            while (a instanceof Decision.Wait waitA && b instanceof Decision.Wait waitB) {
                assertThat(waitA.reason()).isEqualTo(waitB.reason());
                assertThat(waitA.waitMillis()).isEqualTo(waitB.waitMillis());
                a = waitA.deferral().resume();
                b = waitB.deferral().resume();
            }
            assertThat(Outcome.of(a, false)).isEqualTo(Outcome.of(b, false));
            assertThat(a.client()).isEqualTo(b.client());
            if (a instanceof Decision.Admit admitA) {
                runningWatched.add(admitA.admission());
                runningAlone.add(((Decision.Admit) b).admission());
            }
            if (runningWatched.size() > 2 || random.nextBoolean() && !runningWatched.isEmpty()) {
                runningWatched.remove(0).complete(200, 1_000);
                runningAlone.remove(0).complete(200, 1_000);
            }
            if (random.nextInt(20) == 0) {
                shadow.drain();
            }
        }
        shadow.drain();
        ObjectNode withShadow = PolicyJson.mapper().valueToTree(watched.snapshot());
        ObjectNode without = PolicyJson.mapper().valueToTree(alone.snapshot());
        assertThat(withShadow.remove("shadow")).isNotNull();
        without.remove("shadow");
        assertThat(withShadow).isEqualTo(without);
        assertThat(watched.policy()).isEqualTo(alone.policy());
        assertThat(shadow.report(10).candidateRefused()).isGreaterThan(shadow.report(10).liveRefused());
    }

    @Test
    void liveWaitsAreCountedWithTheirFinalOutcome() {
        ThrottleEngine live = engine(withMaxHits(100).withLoad(new Policy.Load(1, 5, 500)));
        LiveShadow shadow = shadowOf(live);
        shadow.install(withMaxHits(100).withLoad(new Policy.Load(100, 5, 500)));
        Decision first = live.decide(Request.direct("192.0.2.1", COPIER));
        Decision second = live.decide(Request.direct("192.0.2.2", COPIER));
        assertThat(second).isInstanceOf(Decision.Wait.class);
        serve(first);
        clock.advanceMillis(500);
        Decision resumed = ((Decision.Wait) second).deferral().resume();
        assertThat(resumed).isInstanceOf(Decision.Admit.class);
        serve(resumed);
        shadow.drain();

        WhatIfReport report = shadow.report(10);
        assertThat(report.outcomes()).containsExactlyInAnyOrder(
                new WhatIfReport.OutcomeRow(RequestClass.BOT, "ADMIT", 1, 2),
                new WhatIfReport.OutcomeRow(RequestClass.BOT, "DELAYED", 1, 0));
        assertThat(report.clients()).singleElement()
                .satisfies(c -> assertThat(c.ip()).isEqualTo("192.0.2.2"));
    }

    @Test
    void aRequestsCostReachesTheLiveEngineWhileAShadowWatches() {
        ThrottleEngine live = engine(withMaxHits(100));
        LiveShadow shadow = shadowOf(live);
        shadow.install(withMaxHits(1));
        Decision.Admit admitted = (Decision.Admit) live.decide(Request.direct("192.0.2.9", COPIER));

        admitted.admission().complete(200, 2_000_000, new RequestCost(1_000_000, 2_000_000, 10, 500));
        shadow.drain();

        assertThat(live.snapshot().costTotals().get(RequestClass.BOT))
                .isEqualTo(new Cost(1, 1, 2_000, 1_000, 10, 500));
    }

    @Test
    void theCandidatesConcurrencyEndsWhenTheRealRequestEnds() {
        Policy onePerClient = withMaxHits(100).withPerClient(new Policy.PerClient(1));
        ThrottleEngine live = engine(withMaxHits(100));
        LiveShadow shadow = shadowOf(live);
        shadow.install(onePerClient);
        Decision.Admit first = (Decision.Admit) live.decide(Request.direct("192.0.2.9", COPIER));
        clock.advanceMillis(1_000);
        serve(live.decide(Request.direct("192.0.2.9", COPIER))); // the first still runs: the candidate refuses
        first.admission().complete(200, 1_000);
        clock.advanceMillis(10);
        serve(live.decide(Request.direct("192.0.2.9", COPIER))); // it ended: the candidate admits
        shadow.drain();

        WhatIfReport.ClientDifference client = shadow.report(10).clients().get(0);
        assertThat(client.candidate()).containsExactly(Map.entry("ADMIT", 2L),
                Map.entry("REFUSE:CLIENT_CONCURRENCY", 1L));
        assertThat(client.live()).containsExactly(Map.entry("ADMIT", 3L));
    }

    @Test
    void aCompletionThatFindsTheQueueFullStillEndsTheCandidatesAdmission() {
        ThrottleEngine live = engine(withMaxHits(100));
        LiveShadow shadow = new LiveShadow(live, CONFIG, new TestClassifier(), null, clock, false, 2);
        shadow.install(withMaxHits(100).withPerClient(new Policy.PerClient(1)));
        Decision.Admit first = (Decision.Admit) live.decide(Request.direct("192.0.2.9", COPIER));
        serve(live.decide(Request.direct("192.0.2.10", COPIER))); // the queue is full now
        first.admission().complete(200, 1_000); // so this completion waits in the overflow
        shadow.drain();
        clock.advanceMillis(10);
        serve(live.decide(Request.direct("192.0.2.9", COPIER)));
        shadow.drain();

        WhatIfReport report = shadow.report(10);
        assertThat(report.dropped()).isZero();
        assertThat(report.clients()).isEmpty(); // the candidate admitted the second request too: the first had ended
    }

    @Test
    void whenTheShadowCannotKeepUpRequestsAreDroppedAndCountedNeverBlocked() {
        ThrottleEngine live = engine(withMaxHits(1000).withLoad(new Policy.Load(1000, 10, 500)));
        LiveShadow shadow = new LiveShadow(live, CONFIG, new TestClassifier(), null, clock, false, 8);
        shadow.install(withMaxHits(1));
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            decisions.add(live.decide(Request.direct("192.0.2." + (10 + i), COPIER)));
        }
        decisions.forEach(LiveShadowTest::serve);
        shadow.drain();

        WhatIfReport report = shadow.report(10);
        assertThat(decisions).allSatisfy(d -> assertThat(d).isInstanceOf(Decision.Admit.class));
        assertThat(report.dropped()).isEqualTo(12);
        assertThat(report.requests()).isEqualTo(8);
        assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("12 requests were not seen"));
        assertThat(live.snapshot().shadow().dropped()).isEqualTo(12);
    }

    @Test
    void anInvalidCandidateIsRefusedAndNothingIsInstalled() {
        ThrottleEngine live = engine(withMaxHits(10));
        LiveShadow shadow = shadowOf(live);
        assertThatThrownBy(() -> shadow.install(withMaxHits(0)))
                .isInstanceOfSatisfying(PolicyValidationException.class, e -> assertThat(e.errors())
                        .anySatisfy(f -> assertThat(f.field()).isEqualTo("hitStack.maxHits")));
        assertThat(shadow.candidate()).isNull();
        assertThat(live.snapshot().shadow()).isNull();
        assertThat(live.decide(Request.direct("192.0.2.4", COPIER)).getClass()).isEqualTo(Decision.Admit.class);
    }

    @Test
    void theSnapshotSummarisesTheShadowAndRemovingItEndsIt() {
        ThrottleEngine live = engine(withMaxHits(3));
        LiveShadow shadow = shadowOf(live);
        shadow.install(withMaxHits(2));
        for (int i = 0; i < 5; i++) {
            serve(live.decide(Request.direct("192.0.2.5", FIREFOX)));
            clock.advanceMillis(100);
        }
        shadow.drain();
        ShadowSummary summary = live.snapshot().shadow();
        assertThat(summary.requests()).isEqualTo(5);
        assertThat(summary.liveRefused()).isEqualTo(2);
        assertThat(summary.candidateRefused()).isEqualTo(3);
        assertThat(summary.clientsDiffering()).isEqualTo(1);
        assertThat(summary.browsersDiffering()).isEqualTo(1);

        assertThat(shadow.remove().policy().hitStack().maxHits()).isEqualTo(2);
        assertThat(live.snapshot().shadow()).isNull();
        assertThat(shadow.report(10)).isNull();
        Decision after = live.decide(Request.direct("192.0.2.6", FIREFOX));
        assertThat(after.getClass()).isEqualTo(Decision.Admit.class);
        assertThat(((Decision.Admit) after).admission().getClass().getSimpleName()).isNotEqualTo("TappedAdmission");
    }

    @Test
    void theReportCoversTheLastFiveMinutes() {
        ThrottleEngine live = engine(withMaxHits(100));
        LiveShadow shadow = shadowOf(live);
        shadow.install(withMaxHits(100).withPause(new Policy.Pause(true, List.of())));
        serve(live.decide(Request.direct("192.0.2.7", FIREFOX)));
        clock.advanceMillis(3 * 60_000);
        serve(live.decide(Request.direct("192.0.2.8", FIREFOX)));
        shadow.drain();
        assertThat(shadow.report(10).requests()).isEqualTo(2);
        clock.advanceMillis(3 * 60_000);
        WhatIfReport later = shadow.report(10);
        assertThat(later.requests()).isEqualTo(1);
        assertThat(later.clients()).singleElement().satisfies(c -> {
            assertThat(c.ip()).isEqualTo("192.0.2.8");
            assertThat(c.candidate()).containsExactly(Map.entry("REFUSE:" + Reason.PAUSED, 1L));
        });
        assertThat(later.from()).isAfter(shadow.candidate().installedAt());
    }
}
