package io.sluice.console.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.LatencySummary;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The dashboard's logic, without the JavaFX toolkit. */
class DashboardViewModelTest {
    private static final Instant NOW = Instant.parse("2026-11-22T12:00:00Z");
    private static final ClientRow COPIER = new ClientRow("127.0.0.66", "HTTrack 3.0", RequestClass.BOT, "HTTrack",
            42, 2, new int[60], new int[60], ClientStatus.LIMITED, NOW);

    private final DashboardViewModel model = new DashboardViewModel();

    @Test
    void summarisesLoadLatencyClientsAndPolicyVersion() {
        model.apply(snapshot(Policy.Pause.NONE, seconds(3)));

        assertThat(model.policyVersionProperty().get()).isEqualTo("policy v7");
        assertThat(model.loadProperty().get()).isEqualTo("in flight 3 / 15   waiting 1 / 10");
        assertThat(model.latencyProperty().get()).isEqualTo("upstream p50 4.0 ms  p90 12 ms  p99 250 ms");
        assertThat(model.clientsProperty().get()).isEqualTo("clients tracked 120 / 100000   evicted 5");
        assertThat(model.pausedProperty().get()).isFalse();
        assertThat(model.connectedProperty().get()).isTrue();
    }

    @Test
    void aPauseIsShownUnmistakably() {
        model.apply(snapshot(new Policy.Pause(true, List.of()), seconds(2)));
        assertThat(model.pauseBannerProperty().get()).isEqualTo("SERVICE PAUSED");
        assertThat(model.pausedProperty().get()).isTrue();

        model.apply(snapshot(new Policy.Pause(false, List.of(RequestClass.CRAWLER)), seconds(2)));
        assertThat(model.pauseBannerProperty().get()).isEqualTo("PAUSED: CRAWLER");
    }

    @Test
    void ratesLeaveOutTheSecondStillInProgressAndAddDelayedToServed() {
        model.apply(snapshot(Policy.Pause.NONE, seconds(4)));

        List<DashboardViewModel.RatePoint> bots = model.rates(RequestClass.BOT);

        assertThat(bots).hasSize(3);
        assertThat(bots.get(0)).isEqualTo(new DashboardViewModel.RatePoint(1000, 5 + 1, 7 + 2));
        assertThat(model.rates(RequestClass.CRAWLER)).allMatch(p -> p.served() == 0 && p.refused() == 0);
    }

    @Test
    void refusalsAreSummedByReasonMostFirst() {
        model.apply(snapshot(Policy.Pause.NONE, seconds(4)));

        assertThat(DashboardViewModel.refusalsLastMinute(model.snapshotProperty().get()))
                .containsEntry(Reason.HIT_STACK, 28L).containsEntry(Reason.LOAD, 8L);
        assertThat(model.refusalsProperty().get())
                .isEqualTo("refused in the last minute:  HIT_STACK 28  LOAD 8");
    }

    @Test
    void banTargetsFollowTheAdminApisTypes() {
        assertThat(model.banIp(COPIER)).isEqualTo(new DashboardViewModel.BanTarget("ip", "127.0.0.66",
                "IP 127.0.0.66"));
        assertThat(model.banUserAgent(COPIER).type()).isEqualTo("agent");
        assertThat(model.banUserAgent(COPIER).value()).isEqualTo("HTTrack 3.0");
        assertThat(model.banClient(COPIER).value()).isEqualTo("127.0.0.66|HTTrack 3.0");
    }

    @Test
    void theSelectionFollowsItsClientIntoTheNextSnapshot() {
        model.apply(snapshot(Policy.Pause.NONE, seconds(2)));
        model.selectedProperty().set(COPIER);
        ClientRow fresher = new ClientRow("127.0.0.66", "HTTrack 3.0", RequestClass.BOT, "HTTrack", 99, 0,
                new int[60], new int[60], ClientStatus.BANNED, NOW);

        model.apply(withClients(snapshot(Policy.Pause.NONE, seconds(2)), List.of(fresher)));

        assertThat(model.selectedProperty().get().hitsInWindow()).isEqualTo(99);
        assertThat(model.selectedProperty().get().status()).isEqualTo(ClientStatus.BANNED);
    }

    @Test
    void banTimeLeftReadsLikeAClock() {
        Ban hour = new Ban("1", BanType.IP, "10.0.0.1", "r", "a", NOW, NOW.plusSeconds(3_720));
        Ban minutes = new Ban("2", BanType.IP, "10.0.0.1", "r", "a", NOW, NOW.plusSeconds(600));
        Ban forever = new Ban("3", BanType.IP, "10.0.0.1", "r", "a", NOW, null);

        assertThat(DashboardViewModel.timeLeft(hour, NOW)).isEqualTo("1h 2m left");
        assertThat(DashboardViewModel.timeLeft(minutes, NOW)).isEqualTo("10m left");
        assertThat(DashboardViewModel.timeLeft(forever, NOW)).isEqualTo("permanent");
        assertThat(DashboardViewModel.timeLeft(minutes, NOW.plusSeconds(601))).isEqualTo("expired");
    }

    private static List<SecondCounts> seconds(int count) {
        List<SecondCounts> seconds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            seconds.add(new SecondCounts(1000 + i, Map.of(RequestClass.BOT, new ClassCounts(5, 1,
                    Map.of(Reason.HIT_STACK, 7L, Reason.LOAD, 2L)))));
        }
        return seconds;
    }

    private static Snapshot snapshot(Policy.Pause pause, List<SecondCounts> seconds) {
        return new Snapshot(NOW, 7, pause, seconds, new LoadState(3, 1, 15, 10),
                new LatencySummary(100, 4_000, 12_000, 250_000, 900_000), List.of(COPIER),
                new ClientTableStats(120, 100_000, 5), List.of(), Map.of());
    }

    private static Snapshot withClients(Snapshot s, List<ClientRow> rows) {
        return new Snapshot(s.takenAt(), s.policyVersion(), s.pause(), s.seconds(), s.load(), s.upstreamLatency(),
                rows, s.clients(), s.bans(), s.totals());
    }

    @Test
    void aHeatmapLabelShortensTheUserAgentButKeepsTheAddressAndTheCount() {
        ClientRow browser = new ClientRow("127.0.0.11", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101",
                RequestClass.BROWSER, null, 10, 0, new int[60], new int[60], ClientStatus.OK, NOW);

        assertThat(DashboardViewModel.heatmapLabel(browser, 38))
                .isEqualTo("browser 127.0.0.11  Mozilla/5.0 (…  10").hasSize(38);
        assertThat(DashboardViewModel.heatmapLabel(COPIER, 38)).isEqualTo("bot 127.0.0.66  HTTrack  42");
    }

    @Test
    void anAddressTooLongForTheLineIsShortenedButTheCountStays() {
        ClientRow v6 = new ClientRow("2001:db8:ffff:ffff:ffff:ffff:ffff:1", "curl/8.5", RequestClass.BOT, null,
                1234, 0, new int[60], new int[60], ClientStatus.OK, NOW);

        String label = DashboardViewModel.heatmapLabel(v6, 38);

        assertThat(label).hasSize(38).startsWith("bot 2001:db8:").endsWith("…  1234");
    }

    @Test
    void theHeatmapsTimeTicksRunFromAMinuteAgoOnTheLeftToNowOnTheRight() {
        assertThat(DashboardViewModel.heatmapTick(0, 60)).isEqualTo("-60 s");
        assertThat(DashboardViewModel.heatmapTick(45, 60)).isEqualTo("-15 s");
        assertThat(DashboardViewModel.heatmapTick(60, 60)).isEqualTo("now");
    }
}
