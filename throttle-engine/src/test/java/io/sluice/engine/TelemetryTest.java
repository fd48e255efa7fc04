package io.sluice.engine;

import static io.sluice.engine.EngineFixture.BROWSER;
import static io.sluice.engine.EngineFixture.CURL;
import static io.sluice.engine.EngineFixture.GOOGLEBOT;
import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.decide;
import static io.sluice.engine.EngineFixture.refused;
import static io.sluice.engine.EngineFixture.served;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TelemetryTest {

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");

    @Test
    void countsEachSecondByClassAndOutcome() {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults().withLoad(new Policy.Load(1, 1, 500)));
        served(decide(engine, "192.0.2.1", BROWSER));
        served(decide(engine, "192.0.2.1", BROWSER));
        for (int i = 0; i < 11; i++) {
            Decision decision = decide(engine, "192.0.2.2", CURL);
            if (decision instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1000);
            }
        }
        clock.advance(Duration.ofSeconds(1));
        Decision.Admit holding = admitted(decide(engine, "192.0.2.3", CURL));
        Decision.Wait wait = EngineFixture.waiting(decide(engine, "192.0.2.4", CURL), Reason.LOAD);
        holding.admission().complete(200, 1000);
        admitted(wait.deferral().resume());

        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.seconds()).hasSize(300);
        SecondCounts first = snapshot.seconds().get(298);
        SecondCounts second = snapshot.seconds().get(299);
        assertThat(first.epochSecond()).isEqualTo(clock.instant().getEpochSecond() - 1);
        assertThat(first.byClass()).isEqualTo(Map.of(
                RequestClass.BROWSER, new ClassCounts(2, 0, Map.of()),
                RequestClass.BOT, new ClassCounts(10, 0, Map.of(Reason.HIT_STACK, 1L))));
        assertThat(second.byClass().get(RequestClass.BOT)).isEqualTo(new ClassCounts(1, 1, Map.of()));
        assertThat(snapshot.seconds().get(0).byClass()).isEmpty();
        assertThat(engine.secondCounts()).as("the counts alone, as a cluster node's heartbeat reads them")
                .isEqualTo(snapshot.seconds());
    }

    @Test
    void oldSecondsLeaveTheHistory() {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults());
        served(decide(engine, "192.0.2.1", BROWSER));
        clock.advance(Duration.ofSeconds(300));
        served(decide(engine, "192.0.2.1", BROWSER));
        long total = engine.snapshot().seconds().stream()
                .flatMap(s -> s.byClass().values().stream()).mapToLong(ClassCounts::admitted).sum();
        assertThat(total).isEqualTo(1);
    }

    @Test
    void totalsSinceStartKeepTheSecondsThatLeftTheHistory() {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults());
        served(decide(engine, "192.0.2.1", BROWSER));
        for (int i = 0; i < 11; i++) {
            Decision decision = decide(engine, "192.0.2.2", CURL);
            if (decision instanceof Decision.Admit admit) {
                admit.admission().complete(200, 1000);
            }
        }
        clock.advance(Duration.ofSeconds(300)); // every second above has left the 5-minute history
        served(decide(engine, "192.0.2.1", BROWSER));
        clock.advance(Duration.ofSeconds(301));
        served(decide(engine, "192.0.2.3", BROWSER));

        assertThat(engine.snapshot().totals()).isEqualTo(Map.of(
                RequestClass.BROWSER, new ClassCounts(3, 0, Map.of()),
                RequestClass.BOT, new ClassCounts(10, 0, Map.of(Reason.HIT_STACK, 1L))));
    }

    @Test
    void topClientsCarryTheirHeatmapRowsAndStatus() {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults());
        for (int second = 0; second < 3; second++) {
            for (int i = 0; i < 5; i++) {
                Decision decision = decide(engine, "192.0.2.9", CURL);
                if (decision instanceof Decision.Admit admit) {
                    admit.admission().complete(200, 1000);
                }
            }
            clock.advance(Duration.ofSeconds(1));
        }
        served(decide(engine, "192.0.2.1", BROWSER));
        Decision.Admit running = admitted(decide(engine, "192.0.2.1", BROWSER));
        served(decide(engine, "66.249.66.1", GOOGLEBOT));

        List<ClientRow> top = engine.snapshot().topClients();
        assertThat(top).extracting(ClientRow::ip).containsExactly("192.0.2.9", "192.0.2.1", "66.249.66.1");
        ClientRow hammer = top.get(0);
        assertThat(hammer.hitsInWindow()).isEqualTo(15);
        assertThat(hammer.hitsPerSecond()).hasSize(60).endsWith(5, 5, 5, 0);
        assertThat(hammer.refusedPerSecond()).endsWith(0, 0, 5, 0);
        assertThat(hammer.status()).isEqualTo(ClientStatus.LIMITED);
        assertThat(hammer.requestClass()).isEqualTo(RequestClass.BOT);
        assertThat(top.get(1).inFlight()).isEqualTo(1);
        assertThat(top.get(1).status()).isEqualTo(ClientStatus.OK);
        assertThat(top.get(2).crawlerName()).isEqualTo("Googlebot");
        running.admission().complete(200, 1000);

        EngineFixture.changePolicyUnaudited(engine, p -> p.withBans(List.of(
                new Ban("b", BanType.IP, "192.0.2.9", "flood", "op", clock.instant(), null))));
        clock.advance(Duration.ofSeconds(6));
        assertThat(engine.snapshot().topClients().get(0).status()).isEqualTo(ClientStatus.BANNED);
    }

    @Test
    void loadLatencyAndPolicyVersionAreReported() {
        // a hundred browsers of one /24 in a second are over its budget: the browser check would ask them
        ThrottleEngine engine = EngineFixture.engine(clock, EngineFixture.withoutBrowserCheck(Policy.defaults()));
        for (int i = 1; i <= 100; i++) {
            admitted(decide(engine, "192.0.2." + i, BROWSER)).admission().complete(200, i * 1_000_000L);
        }
        Decision.Admit open = admitted(decide(engine, "192.0.2.200", BROWSER));
        Snapshot snapshot = engine.snapshot();
        assertThat(snapshot.load().inFlight()).isEqualTo(1);
        assertThat(snapshot.load().maxActive()).isEqualTo(15);
        assertThat(snapshot.upstreamLatency().count()).isEqualTo(100);
        assertThat(snapshot.upstreamLatency().p50Micros()).isBetween(49_000L, 51_000L);
        assertThat(snapshot.upstreamLatency().p99Micros()).isBetween(98_000L, 100_500L);
        assertThat(snapshot.policyVersion()).isEqualTo(1);
        open.admission().complete(200, -1);
        // a second snapshot within the minute still sees the same latencies; after a minute they are gone
        assertThat(engine.snapshot().upstreamLatency().count()).isEqualTo(100);
        clock.advance(Duration.ofSeconds(61));
        assertThat(engine.snapshot().upstreamLatency().count()).isZero();
    }

    @Test
    void theSnapshotSerialisesToJson() throws Exception {
        ThrottleEngine engine = EngineFixture.engine(clock, Policy.defaults());
        served(decide(engine, "192.0.2.1", CURL));
        refused(decide(EngineFixture.engine(clock, Policy.defaults()
                .withPause(new Policy.Pause(true, List.of()))), "192.0.2.1", CURL), Reason.PAUSED);
        String json = PolicyJson.mapper().writeValueAsString(engine.snapshot());
        assertThat(json).contains("\"policyVersion\":1", "\"topClients\":[{\"ip\":\"192.0.2.1\"",
                "\"clients\":{\"tracked\":1,\"capacity\":100000,\"evicted\":0}");
    }
}
