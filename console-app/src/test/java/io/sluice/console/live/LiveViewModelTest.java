package io.sluice.console.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.chart.AuditMark;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.BanType;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import io.sluice.engine.telemetry.ClientTableStats;
import io.sluice.engine.telemetry.CrawlerIdentity;
import io.sluice.engine.telemetry.LatencySummary;
import io.sluice.engine.telemetry.LoadState;
import io.sluice.engine.telemetry.SecondCounts;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The live room's logic and commands, without the JavaFX toolkit. */
class LiveViewModelTest {
    private static final Instant NOW = TestSessions.NOW;
    private static final ClientRow COPIER = new ClientRow("127.0.0.66", "HTTrack 3.0", RequestClass.BOT, "HTTrack",
            42, 2, new int[60], new int[60], ClientStatus.LIMITED, NOW);

    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final LiveViewModel model = new LiveViewModel(TestSessions.offline(ui));

    @Test
    void loadIsABarAgainstEachLimit() {
        model.apply(snapshot(7, new LoadState(12, 10, 15, 10), seconds(3), List.of(COPIER)));

        assertThat(model.inFlightProperty().get()).isEqualTo("in flight 12 / 15");
        assertThat(model.inFlightShareProperty().get()).isEqualTo(0.8);
        assertThat(LiveViewModel.level(model.inFlightShareProperty().get())).isEqualTo("high");
        assertThat(model.waitingProperty().get()).isEqualTo("waiting 10 / 10");
        assertThat(LiveViewModel.level(model.waitingShareProperty().get())).isEqualTo("full");
        assertThat(LiveViewModel.level(LiveViewModel.share(3, 15))).isEqualTo("normal");
        assertThat(LiveViewModel.share(4, 0)).as("a limit of 0 is full at once").isEqualTo(1.0);
    }

    @Test
    void summarisesLatencyAndClients() {
        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(3), List.of(COPIER)));

        assertThat(model.latencyProperty().get()).isEqualTo("upstream p50 4.0 ms  p90 12 ms  p99 250 ms");
        assertThat(model.clientsProperty().get()).isEqualTo("clients tracked 120 / 100000   evicted 5");
    }

    @Test
    void ratesLeaveOutTheSecondStillInProgressAndAddDelayedToServed() {
        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(4), List.of()));

        assertThat(model.served(RequestClass.BOT)).hasSize(3).first()
                .isEqualTo(new LiveViewModel.RatePoint(1000, 5 + 1));
        assertThat(model.served(RequestClass.CRAWLER)).allMatch(p -> p.count() == 0);
        assertThat(model.chartEndProperty().get()).as("the newest complete second").isEqualTo(1002);
    }

    @Test
    void refusalsAreSplitByReasonGroup() {
        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(4), List.of()));

        assertThat(model.refused(RefusalKind.HIT_STACK)).extracting(LiveViewModel.RatePoint::count)
                .containsOnly(7L + 3L);
        assertThat(model.refused(RefusalKind.LOAD)).extracting(LiveViewModel.RatePoint::count).containsOnly(2L);
        assertThat(model.refused(RefusalKind.BANNED)).extracting(LiveViewModel.RatePoint::count).containsOnly(0L);
        assertThat(model.refusalsProperty().get())
                .isEqualTo("refused in the last minute:  HIT_STACK 28  ROUTE_LIMIT 12  LOAD 8");
    }

    @Test
    void everyRefusalReasonHasAGroupOnTheChart() {
        assertThat(Arrays.stream(Reason.values()).filter(r -> r != Reason.DELAYED).map(RefusalKind::of))
                .doesNotContainNull();
        assertThat(RefusalKind.of(Reason.DELAYED)).isNull();
    }

    @Test
    void theSelectionFollowsItsClientIntoTheNextSnapshot() {
        ClientRow other = new ClientRow("127.0.0.11", "Firefox", RequestClass.BROWSER, null, 3, 0, new int[60],
                new int[60], ClientStatus.OK, NOW);
        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(2), List.of(COPIER, other)));
        model.select(0);
        ClientRow fresher = new ClientRow("127.0.0.66", "HTTrack 3.0", RequestClass.BOT, "HTTrack", 99, 0,
                new int[60], new int[60], ClientStatus.BANNED, NOW);

        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(2), List.of(other, fresher)));

        assertThat(model.selectedProperty().get().hitsInWindow()).isEqualTo(99);
        assertThat(model.selectedIndexProperty().get()).isEqualTo(1);
        assertThat(model.detailsProperty().get()).contains("127.0.0.66", "HTTrack", "Status: BANNED");
    }

    @Test
    void banTargetsFollowTheAdminApisTypes() {
        assertThat(LiveViewModel.banIp(COPIER)).isEqualTo(new LiveViewModel.BanTarget("ip", "127.0.0.66",
                "IP 127.0.0.66"));
        assertThat(LiveViewModel.banUserAgent(COPIER).type()).isEqualTo("agent");
        assertThat(LiveViewModel.banUserAgent(COPIER).value()).isEqualTo("HTTrack 3.0");
        assertThat(LiveViewModel.banClient(COPIER).value()).isEqualTo("127.0.0.66|HTTrack 3.0");
    }

    @Test
    void noBanWithoutASelectedClient() {
        model.apply(snapshot(7, new LoadState(3, 1, 15, 10), seconds(2), List.of(COPIER)));
        assertThat(model.banIp().executableProperty().get()).isFalse();
        model.select(0);
        assertThat(model.banIp().executableProperty().get()).isTrue();
    }

    @Test
    void banningTheSelectedClientBansItOnTheServerAndItsActionBecomesAMark(@TempDir Path state) throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            LiveViewModel live = new LiveViewModel(TestSessions.on(server, ui));
            live.apply(snapshot(1, new LoadState(0, 0, 15, 10), seconds(2), List.of(COPIER)));
            live.select(0);
            live.banDurationProperty().set(BanDuration.TEN_MINUTES);
            live.banReasonProperty().set("site copier");

            live.banIp().execute();

            assertThat(server.engine().policy().bans()).singleElement().satisfies(ban -> {
                assertThat(ban.type()).isEqualTo(BanType.IP);
                assertThat(ban.value()).isEqualTo("127.0.0.66");
                assertThat(ban.reason()).isEqualTo("site copier");
                assertThat(ban.expiresAt()).isAfter(ban.createdAt().plusSeconds(599));
            });
            assertThat(live.actionResultProperty().get()).isEqualTo("Banned IP 127.0.0.66");
            // The ban changed the policy's version: the next snapshot reads the audit, and the ban is a mark.
            live.apply(snapshot(server.engine().policy().version(), new LoadState(0, 0, 15, 10), seconds(2),
                    List.of(COPIER)));
            assertThat(live.marks()).singleElement().satisfies(mark -> {
                assertThat(mark.kind()).isEqualTo(AuditMark.Kind.BAN);
                assertThat(mark.who()).contains("admin", "tester");
                assertThat(mark.detail()).contains("127.0.0.66");
            });
        }
    }

    @Test
    void aHeatmapLabelShortensTheUserAgentButKeepsTheAddressAndTheCount() {
        ClientRow browser = new ClientRow("127.0.0.11", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101",
                RequestClass.BROWSER, null, 10, 0, new int[60], new int[60], ClientStatus.OK, NOW);

        assertThat(LiveViewModel.heatmapLabel(browser, 38))
                .isEqualTo("browser 127.0.0.11  Mozilla/5.0 (…  10").hasSize(38);
        assertThat(LiveViewModel.heatmapLabel(COPIER, 38)).isEqualTo("bot 127.0.0.66  HTTrack  42");
    }

    @Test
    void aRowNotClassifiedYetIsLabelledSoInsteadOfBreakingTheHeatmap() {
        ClientRow unjudged = new ClientRow("127.0.0.12", "curl/8.5.0", null, null, 0, 1, new int[60], new int[60],
                ClientStatus.OK, NOW);

        assertThat(LiveViewModel.heatmapLabel(unjudged, 60)).isEqualTo("unclassified 127.0.0.12  curl/8.5.0  0");
    }

    @Test
    void aCrawlerRowSaysWhetherItsClaimWasVerified() {
        ClientRow real = new ClientRow("66.249.66.1", "Googlebot/2.1", RequestClass.CRAWLER, "Googlebot", 1, 0,
                new int[60], new int[60], ClientStatus.OK, NOW, false, CrawlerIdentity.VERIFIED);
        ClientRow fake = new ClientRow("203.0.113.66", "Googlebot/2.1", RequestClass.BOT, "Googlebot", 3, 0,
                new int[60], new int[60], ClientStatus.OK, NOW, false, CrawlerIdentity.CLAIMED);

        assertThat(LiveViewModel.heatmapLabel(real, 60)).isEqualTo("crawler 66.249.66.1  Googlebot (verified)  1");
        assertThat(LiveViewModel.heatmapLabel(fake, 60)).isEqualTo("bot 203.0.113.66  Googlebot (claimed)  3");
        assertThat(LiveViewModel.describe(fake))
                .contains("Class: BOT (Googlebot, claimed: only its user agent says so)");
        assertThat(LiveViewModel.describe(real)).contains("Class: CRAWLER (Googlebot, verified");
    }

    @Test
    void anAddressTooLongForTheLineIsShortenedButTheCountStays() {
        ClientRow v6 = new ClientRow("2001:db8:ffff:ffff:ffff:ffff:ffff:1", "curl/8.5", RequestClass.BOT, null,
                1234, 0, new int[60], new int[60], ClientStatus.OK, NOW);

        assertThat(LiveViewModel.heatmapLabel(v6, 38)).hasSize(38).startsWith("bot 2001:db8:").endsWith("…  1234");
    }

    @Test
    void theHeatmapsTimeTicksRunFromAMinuteAgoOnTheLeftToNowOnTheRight() {
        assertThat(LiveViewModel.heatmapTick(0, 60)).isEqualTo("-60 s");
        assertThat(LiveViewModel.heatmapTick(45, 60)).isEqualTo("-15 s");
        assertThat(LiveViewModel.heatmapTick(60, 60)).isEqualTo("now");
    }

    private static List<SecondCounts> seconds(int count) {
        List<SecondCounts> seconds = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            seconds.add(new SecondCounts(1000 + i, Map.of(
                    RequestClass.BOT, new ClassCounts(5, 1, Map.of(Reason.HIT_STACK, 7L, Reason.LOAD, 2L)),
                    RequestClass.BROWSER, new ClassCounts(9, 0, Map.of(Reason.ROUTE_LIMIT, 3L)))));
        }
        return seconds;
    }

    private static Snapshot snapshot(long version, LoadState load, List<SecondCounts> seconds, List<ClientRow> rows) {
        return new Snapshot(NOW, version, Policy.Pause.NONE, seconds, load,
                new LatencySummary(100, 4_000, 12_000, 250_000, 900_000), rows,
                new ClientTableStats(120, 100_000, 5), List.of(), Map.of());
    }
}
