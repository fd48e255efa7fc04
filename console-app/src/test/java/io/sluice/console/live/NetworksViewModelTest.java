package io.sluice.console.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.CostShare;
import io.sluice.engine.telemetry.CostSummary;
import io.sluice.engine.telemetry.LatencySummary;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.NetworkFunnel;
import io.sluice.engine.telemetry.NetworkRow;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The networks view's logic and commands, and the live room's view of cost, without the JavaFX toolkit. */
class NetworksViewModelTest {
    private static final Instant NOW = TestSessions.NOW;
    /** Costly but quiet: a slow search from a few addresses. */
    private static final NetworkRow SEARCHERS = network("198.51.100.0/24", 2, 40, 0, 9_000_000);
    /** Busy and cheap: a fleet of cached pages. */
    private static final NetworkRow FLEET = network("203.0.113.0/24", 200, 900, 5, 1_000_000);
    /** Refused most. */
    private static final NetworkRow REFUSED = network("192.0.2.0/24", 1, 300, 250, 10_000);

    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final NetworksViewModel model = new NetworksViewModel(TestSessions.offline(ui));

    private static NetworkRow network(String cidr, int addresses, long hits, long refused, long upstreamMicros) {
        return new NetworkRow(cidr, addresses, 1, hits, refused, new Cost(hits, hits, upstreamMicros,
                upstreamMicros / 2, 0, hits * 1_000), upstreamMicros / 10_010_000.0, List.of(cidr.replace("0/24", "7")),
                List.of("Mozilla/5.0"));
    }

    static Snapshot snapshot(List<NetworkRow> networks, List<Ban> bans, CostSummary summary) {
        return new Snapshot(NOW, 3, Policy.Pause.NONE, List.of(), new LoadState(0, 0, 15, 10),
                new LatencySummary(0, 0, 0, 0, 0), List.of(), new ClientTableStats(10, 100_000, 0), bans, Map.of(),
                null, null, List.of(), networks, new ClientTableStats(3, 100_000, 7), Map.of(), Map.of(), summary);
    }

    /** A snapshot of these networks whose browser check always asks {@code checked}. */
    static Snapshot checking(List<NetworkRow> networks, List<String> checked) {
        Snapshot s = snapshot(networks, List.of(), null);
        return new Snapshot(s.takenAt(), s.policyVersion(), s.pause(), s.seconds(), s.load(), s.upstreamLatency(),
                s.topClients(), s.clients(), s.bans(), s.totals(), s.shadow(), s.cluster(), s.costliestClients(),
                s.networks(), s.networkTable(), s.costLastMinute(), s.costTotals(), s.costSummary(),
                new BrowserCheckCounts(BrowserCheck.Mode.ADAPTIVE, false, 0, 0, 0, 0, 0, 0, 0, 0, checked, 0,
                        List.of(), null));
    }

    @Test
    void eachRowShowsItsFunnelCompactAndTheSelectedOneInWords() {
        NetworkRow asked = network("203.0.113.0/24", 40, 12, 30, 50_000);
        asked = new NetworkRow(asked.network(), asked.addresses(), asked.userAgents(), asked.hits(), asked.refused(),
                asked.cost(), asked.upstreamShare(), asked.busiestAddresses(), asked.busiestUserAgents(),
                new NetworkFunnel(30, 3, 1, 2, 12));
        model.apply(snapshot(List.of(asked, SEARCHERS), List.of(), null));

        assertThat(model.rowsProperty().get()).extracting(NetworksViewModel.Row::funnel)
                .containsExactly("-", "30 / 4 / 12");
        model.select(1);
        assertThat(model.detailsProperty().get())
                .contains("\nCheck: asked 30, passed 4 (1 no JS), failed 2, on a pass 12\n");
        model.select(0);
        assertThat(model.detailsProperty().get()).doesNotContain("Check:");
    }

    @Test
    void networksAreRankedByCostHitsOrRefusals() {
        model.apply(snapshot(List.of(FLEET, REFUSED, SEARCHERS), List.of(), null));

        assertThat(model.rowsProperty().get()).extracting(NetworksViewModel.Row::cidr)
                .containsExactly("198.51.100.0/24", "203.0.113.0/24", "192.0.2.0/24");
        model.rankingProperty().set(NetworksViewModel.Ranking.HITS);
        assertThat(model.rowsProperty().get()).extracting(NetworksViewModel.Row::cidr)
                .containsExactly("203.0.113.0/24", "192.0.2.0/24", "198.51.100.0/24");
        model.rankingProperty().set(NetworksViewModel.Ranking.REFUSALS);
        assertThat(model.rowsProperty().get()).extracting(NetworksViewModel.Row::cidr)
                .containsExactly("192.0.2.0/24", "203.0.113.0/24", "198.51.100.0/24");
        assertThat(model.tableProperty().get()).isEqualTo("networks tracked 3 / 100000   evicted 7");
    }

    @Test
    void theSelectionFollowsItsNetworkAndSaysWhoIsInIt() {
        model.apply(snapshot(List.of(FLEET, SEARCHERS), List.of(), null));
        model.select(1);
        assertThat(model.selectedProperty().get().cidr()).isEqualTo("203.0.113.0/24");

        model.rankingProperty().set(NetworksViewModel.Ranking.HITS);

        assertThat(model.selectedIndexProperty().get()).isZero();
        assertThat(model.detailsProperty().get()).contains("Network: 203.0.113.0/24",
                "Upstream time, last minute: 1.00 s (10 % of all)", "Hits 900, refused 5", "Addresses 200: 203.0.113.7",
                "User agents 1:", "Mozilla/5.0");
        assertThat(model.selectedProperty().get().upstream()).isEqualTo("1.00 s");
    }

    @Test
    void banIsOfferedForAnUnbannedNetworkAndUndoForABannedOne() {
        Ban ban = new Ban("b1", BanType.IP, "203.0.113.0/24", "fleet", "tester", NOW, NOW.plusSeconds(3600));
        model.apply(snapshot(List.of(FLEET, SEARCHERS), List.of(ban), null));
        assertThat(model.banNetwork().executableProperty().get()).as("nothing selected").isFalse();

        model.select(1);
        assertThat(model.selectedProperty().get().status()).isEqualTo("BANNED");
        assertThat(model.banNetwork().executableProperty().get()).isFalse();
        assertThat(model.undoBan().executableProperty().get()).isTrue();
        model.select(0);
        assertThat(model.banNetwork().executableProperty().get()).isTrue();
        assertThat(model.undoBan().executableProperty().get()).isFalse();
    }

    @Test
    void aBanOfTheSelectedNetworkIsACidrBanOnTheServerAndIsUndoneFromTheSameRow(@TempDir Path state)
            throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            NetworksViewModel networks = new NetworksViewModel(TestSessions.on(server, ui));
            networks.apply(snapshot(List.of(FLEET), List.of(), null));
            networks.select(0);
            networks.banDurationProperty().set(BanDuration.TEN_MINUTES);

            networks.banNetwork().execute();

            assertThat(server.engine().policy().bans()).as(networks.actionResultProperty().get()).singleElement()
                    .satisfies(ban -> {
                        assertThat(ban.type()).isEqualTo(BanType.IP);
                        assertThat(ban.value()).isEqualTo("203.0.113.0/24");
                        assertThat(ban.author()).isEqualTo("tester");
                        assertThat(ban.expiresAt()).isAfter(ban.createdAt().plusSeconds(599));
                    });
            assertThat(networks.actionResultProperty().get()).isEqualTo("Banned network 203.0.113.0/24");

            networks.apply(snapshot(List.of(FLEET), server.engine().policy().bans(), null));
            assertThat(networks.selectedProperty().get().ban()).isNotNull();
            networks.undoBan().execute();

            assertThat(server.engine().policy().bans()).isEmpty();
            assertThat(networks.actionResultProperty().get()).isEqualTo("Lifted the ban of 203.0.113.0/24");
        }
    }

    @Test
    void theBrowserCheckIsSwitchedOnForTheSelectedNetworkAndOffFromTheSameRow(@TempDir Path state)
            throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            NetworksViewModel networks = new NetworksViewModel(TestSessions.on(server, ui));
            networks.apply(snapshot(List.of(FLEET), List.of(), null));
            networks.select(0);
            assertThat(networks.stopChallenging().executableProperty().get()).isFalse();

            networks.challenge().execute();

            assertThat(server.engine().policy().browserCheck().alwaysChallenge()).containsExactly("203.0.113.0/24");
            assertThat(server.state().audit().newestFirst(1).get(0).action()).isEqualTo("browser-check.network");
            assertThat(networks.actionResultProperty().get())
                    .isEqualTo("The browser check asks 203.0.113.0/24");
            networks.apply(checking(List.of(FLEET), server.engine().policy().browserCheck().alwaysChallenge()));
            assertThat(networks.selectedProperty().get().status()).isEqualTo("CHECKED");
            assertThat(networks.challenge().executableProperty().get()).isFalse();

            networks.stopChallenging().execute();
            assertThat(server.engine().policy().browserCheck().alwaysChallenge()).isEmpty();
        }
    }

    @Test
    void theHeatmapRanksByCostAsWellAsHits() {
        ClientRow busy = new ClientRow("192.0.2.1", "curl/8", RequestClass.BOT, null, 40, 0, new int[60],
                new int[60], ClientStatus.OK, NOW, false, null, new Cost(40, 40, 400_000, 200_000, 0, 40_000));
        ClientRow costly = new ClientRow("198.51.100.7", "Mozilla/5.0", RequestClass.BROWSER, null, 3, 1,
                new int[60], new int[60], ClientStatus.OK, NOW, false, null, new Cost(3, 3, 2_000_000, 900_000, 0, 10));
        LiveViewModel live = new LiveViewModel(TestSessions.offline(ui));
        live.apply(new Snapshot(NOW, 3, Policy.Pause.NONE, List.of(), new LoadState(0, 0, 15, 10),
                new LatencySummary(0, 0, 0, 0, 0), List.of(busy, costly), new ClientTableStats(2, 100_000, 0),
                List.of(), Map.of(), null, null, List.of(costly, busy), List.of(), null, Map.of(), Map.of(), null));
        live.select(1);
        assertThat(live.rows().get()).containsExactly(busy, costly);

        live.heatmapRankingProperty().set(LiveViewModel.HeatmapRanking.COST);

        assertThat(live.rows().get()).containsExactly(costly, busy);
        assertThat(live.selectedIndexProperty().get()).as("the same client, now first").isZero();
        assertThat(live.detailsProperty().get()).contains("Upstream time, last minute: 2.00 s   bytes in 0, out 10");
        assertThat(LiveViewModel.heatmapLabel(costly, 60)).isEqualTo("browser 198.51.100.7  Mozilla/5.0  3  2.00 s");
    }

    @Test
    void theSummarySaysWhatIsCostingUsAndWhetherItIsRising() {
        LiveViewModel live = new LiveViewModel(TestSessions.offline(ui));
        live.apply(snapshot(List.of(), List.of(), new CostSummary(12_600_000,
                new CostShare("BOT", 0.72, 0.8, 0.6, true),
                new CostShare("203.0.113.0/24", 0.65, 0.65, 0.66, false),
                new CostShare("/search", 0.8, 0.7, 0.9, false))));

        assertThat(live.costSummaryProperty().get()).isEqualTo("What is costing us (upstream 12.6 s in the last "
                + "minute):  class bot 72 % (rising)  network 203.0.113.0/24 65 % (steady)  route /search 80 % "
                + "(falling)");
        assertThat(live.costRisingProperty().get()).isTrue();

        live.apply(snapshot(List.of(), List.of(), null));
        assertThat(live.costSummaryProperty().get())
                .isEqualTo("What is costing us: nothing measured in the last minute");
        assertThat(live.costRisingProperty().get()).isFalse();
    }
}
