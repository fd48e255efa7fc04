package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.Route;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.CostSummary;
import io.sluice.engine.telemetry.NetworkRow;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What requests cost the upstream, as the front end reports it: per client, address, network, class and route. */
class CostTest {

    private static final long MILLI = 1_000_000L;
    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");

    /** Limits that admit everything these tests send. */
    private static Policy generous() {
        List<Route> routes = new ArrayList<>();
        routes.add(new Route(Route.Match.PREFIX, "/search", null, List.of(), List.of(), List.of(), 1, null, null));
        routes.addAll(Route.DEFAULTS);
        return Policy.defaults().withHitStack(new Policy.HitStack(15, 100_000))
                .withPerAddress(new Policy.PerAddress(32, 64, 15, 100_000, 100_000))
                .withLoad(new Policy.Load(100_000, 10, 500)).withRoutes(routes);
    }

    private ThrottleEngine engine(EngineConfig config) {
        return new ThrottleEngine(config, clock, generous(), new FakeClassifier());
    }

    private static void serve(ThrottleEngine engine, String ip, String agent, String path, RequestCost cost) {
        admitted(engine.decide(Request.get(ip, agent, path))).admission().complete(200, cost.upstreamNanos(), cost);
    }

    private static RequestCost took(long millis) {
        return new RequestCost(millis * MILLI / 2, millis * MILLI, 0, 1_000);
    }

    @Test
    void aSlowRouteShowsItsShareOfTheUpstreamsTime() {
        ThrottleEngine engine = engine(EngineConfig.defaults());
        for (int i = 0; i < 10; i++) {
            serve(engine, "192.0.2.1", BROWSER, "/page/" + i, took(10));
        }
        serve(engine, "198.51.100.7", CURL, "/search?q=x", took(2_000));

        Snapshot snapshot = engine.snapshot();
        CostSummary summary = snapshot.costSummary();
        assertThat(summary.upstreamMicros()).isEqualTo(2_100_000);
        assertThat(summary.byRoute().key()).isEqualTo("/search");
        assertThat(summary.byRoute().share()).isCloseTo(2_000.0 / 2_100, within(1e-9));
        assertThat(summary.byClass().key()).isEqualTo("BOT");
        assertThat(summary.byNetwork().key()).isEqualTo("198.51.100.0/24");
        assertThat(snapshot.costLastMinute().get(RequestClass.BROWSER))
                .isEqualTo(new Cost(10, 10, 100_000, 50_000, 0, 10_000));
        assertThat(snapshot.costTotals().get(RequestClass.BOT).upstreamMicros()).isEqualTo(2_000_000);
        // the client's own row, in the heatmap ranked by cost: the slow search first
        assertThat(snapshot.costliestClients()).extracting(ClientRow::ip).containsExactly("198.51.100.7",
                "192.0.2.1");
        assertThat(snapshot.costliestClients().get(0).cost().upstreamMicros()).isEqualTo(2_000_000);
        NetworkRow slow = snapshot.networks().get(0);
        assertThat(slow.network()).isEqualTo("198.51.100.0/24");
        assertThat(slow.upstreamShare()).isCloseTo(2_000.0 / 2_100, within(1e-9));
        assertThat(slow.busiestUserAgents()).containsExactly(CURL);
    }

    @Test
    void bytesAreCountedBothWaysOnEveryKey() {
        ThrottleEngine engine = engine(EngineConfig.defaults());
        for (int i = 0; i < 3; i++) {
            serve(engine, "192.0.2.1", BROWSER, "/upload", new RequestCost(MILLI, 2 * MILLI, 4_096, 100));
            serve(engine, "192.0.2.1", CURL, "/download", new RequestCost(MILLI, 2 * MILLI, 0, 1_000_000));
        }
        Snapshot snapshot = engine.snapshot();
        Cost both = new Cost(6, 6, 12_000, 6_000, 3 * 4_096, 3 * (100 + 1_000_000));
        assertThat(snapshot.networks()).singleElement().satisfies(network -> {
            assertThat(network.cost()).isEqualTo(both);
            assertThat(network.addresses()).isEqualTo(1);
            assertThat(network.userAgents()).isEqualTo(2);
            assertThat(network.hits()).isEqualTo(6);
        });
        ClientRow address = snapshot.topClients().stream().filter(ClientRow::address).findFirst().orElseThrow();
        assertThat(address.cost()).as("the address, its two clients together").isEqualTo(both);
        ClientRow browser = snapshot.topClients().stream().filter(r -> BROWSER.equals(r.userAgent())).findFirst()
                .orElseThrow();
        assertThat(browser.cost()).isEqualTo(new Cost(3, 3, 6_000, 3_000, 3 * 4_096, 300));
        assertThat(snapshot.costTotals().get(RequestClass.BOT).bytesOut()).isEqualTo(3_000_000);
    }

    @Test
    void aFleetIsOneRowPerNetworkAndItsHitsAreItsAddresses() {
        ThrottleEngine engine = engine(EngineConfig.defaults().withTopClients(20));
        for (int network = 0; network < 10; network++) {
            for (int host = 0; host < 20; host++) {
                for (int hit = 0; hit <= network; hit++) {
                    serve(engine, "203.0." + (100 + network) + "." + (host + 1), BROWSER, "/", took(1));
                }
            }
        }
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.networks()).hasSize(10);
        assertThat(snapshot.networks()).extracting(NetworkRow::network)
                .startsWith("203.0.109.0/24", "203.0.108.0/24").endsWith("203.0.100.0/24");
        NetworkRow busiest = snapshot.networks().get(0);
        assertThat(busiest.addresses()).isEqualTo(20);
        assertThat(busiest.userAgents()).isEqualTo(1);
        assertThat(busiest.hits()).isEqualTo(20 * 10);
        assertThat(busiest.busiestAddresses()).hasSize(5);
    }

    @Test
    void refusalsAreCountedPerNetwork() {
        Policy policy = generous().withHitStack(new Policy.HitStack(15, 2));
        ThrottleEngine engine = new ThrottleEngine(EngineConfig.defaults(), clock, policy, new FakeClassifier());
        for (int i = 0; i < 5; i++) {
            Decision decision = engine.decide(Request.get("192.0.2.9", CURL, "/"));
            if (decision instanceof Decision.Admit admit) {
                admit.admission().complete(200, MILLI, took(1));
            }
        }
        assertThat(engine.snapshot().networks()).singleElement()
                .satisfies(network -> assertThat(network.refused()).isEqualTo(3));
    }

    @Test
    void aShareRisesWhenItsNewerHalfMinuteHoldsMore() {
        ThrottleEngine engine = engine(EngineConfig.defaults());
        serve(engine, "192.0.2.1", BROWSER, "/", took(100));
        serve(engine, "198.51.100.1", BROWSER, "/", took(100));
        clock.advance(Duration.ofSeconds(30));
        serve(engine, "198.51.100.1", BROWSER, "/", took(900));
        serve(engine, "192.0.2.1", BROWSER, "/", took(100));

        CostSummary summary = engine.snapshot().costSummary();
        assertThat(summary.byNetwork().key()).isEqualTo("198.51.100.0/24");
        assertThat(summary.byNetwork().earlierShare()).isCloseTo(0.5, within(1e-9));
        assertThat(summary.byNetwork().recentShare()).isCloseTo(0.9, within(1e-9));
        assertThat(summary.byNetwork().rising()).isTrue();
        assertThat(summary.byClass().rising()).as("every request is a browser's, then as now").isFalse();

        clock.advance(Duration.ofSeconds(61));
        assertThat(engine.snapshot().costSummary()).as("a minute later").isEqualTo(CostSummary.NONE);
    }

    @Test
    void aSprayOfNetworksEvictsAndSaysSo() {
        ThrottleEngine engine = engine(EngineConfig.defaults().withMaxTrackedClients(100));
        for (int network = 0; network < 1_000; network++) {
            serve(engine, "10." + network / 256 + "." + network % 256 + ".1", BROWSER, "/", took(1));
        }
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.networkTable().capacity()).isEqualTo(100);
        assertThat(snapshot.networkTable().tracked()).isLessThanOrEqualTo(100);
        assertThat(snapshot.networkTable().evicted()).isGreaterThanOrEqualTo(900);
        assertThat(snapshot.costTotals().get(RequestClass.BROWSER).requests()).as("the classes lose nothing")
                .isEqualTo(1_000);
    }

    @Test
    void anAdmissionCompletedWithoutACostCountsNone() {
        ThrottleEngine engine = engine(EngineConfig.defaults());
        admitted(engine.decide(Request.direct("192.0.2.1", BROWSER))).admission().complete(200, 5 * MILLI);
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.costTotals()).isEmpty();
        assertThat(snapshot.costliestClients()).isEmpty();
        assertThat(snapshot.costSummary()).isEqualTo(CostSummary.NONE);
        assertThat(snapshot.upstreamLatency().count()).isEqualTo(1);
    }
}
