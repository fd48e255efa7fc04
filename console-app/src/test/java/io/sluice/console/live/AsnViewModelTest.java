package io.sluice.console.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.TestSessions;
import io.sluice.engine.policy.BrowserCheck;
import io.sluice.engine.telemetry.AsnRow;
import io.sluice.engine.telemetry.AsnTableStats;
import io.sluice.engine.telemetry.BrowserCheckCounts;
import io.sluice.engine.telemetry.Cost;
import io.sluice.engine.telemetry.Snapshot;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The networks tab's autonomous systems, without the JavaFX toolkit. */
class AsnViewModelTest {
    private static final AsnRow AMAZON = new AsnRow(16509, "AMAZON-02", 12, 400, 5, 900, 40,
            new Cost(900, 900, 9_000_000, 4_000_000, 0, 900_000), 0.6, List.of("3.5.1.0/24", "3.5.2.0/24"));
    private static final AsnRow UNNAMED = new AsnRow(64512, null, 1, 2, 1, 10, 0, null, 0.01, List.of());

    private static final AsnTableStats TABLE = new AsnTableStats("ip2asn-combined.tsv", 450_000, 110_000, 78_000);

    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final AsnViewModel model = new AsnViewModel(TestSessions.offline(ui));

    private static Snapshot snapshot(AsnTableStats table, List<AsnRow> systems) {
        return snapshot(table, systems, List.of());
    }

    /** A snapshot whose browser check always asks {@code checked}. */
    private static Snapshot snapshot(AsnTableStats table, List<AsnRow> systems, List<Long> checked) {
        Snapshot s = NetworksViewModelTest.snapshot(List.of(), List.of(), null);
        return new Snapshot(s.takenAt(), s.policyVersion(), s.pause(), s.seconds(), s.load(), s.upstreamLatency(),
                s.topClients(), s.clients(), s.bans(), s.totals(), s.shadow(), s.cluster(), s.costliestClients(),
                s.networks(), s.networkTable(), s.costLastMinute(), s.costTotals(), s.costSummary(),
                new BrowserCheckCounts(BrowserCheck.Mode.ADAPTIVE, false, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0,
                        List.of(), null, checked), null, null, systems, table);
    }

    @Test
    void theBrowserCheckIsSwitchedOnForTheSelectedAsAndOffFromTheSameRow(@TempDir Path state) throws Exception {
        try (SluiceServer server = TestSessions.server(state)) {
            AsnViewModel systems = new AsnViewModel(TestSessions.on(server, ui));
            systems.apply(snapshot(TABLE, List.of(AMAZON)));
            systems.select(0);
            assertThat(systems.stopChallenging().executableProperty().get()).isFalse();

            systems.challenge().execute();

            assertThat(server.engine().policy().browserCheck().alwaysChallengeAsns()).containsExactly(16509L);
            assertThat(server.state().audit().newestFirst(1).get(0).detail()).isEqualTo("challenge AS16509");
            assertThat(systems.actionResultProperty().get()).isEqualTo("The browser check asks AS16509");
            systems.apply(snapshot(TABLE, List.of(AMAZON), server.engine().policy().browserCheck()
                    .alwaysChallengeAsns()));
            assertThat(systems.selectedProperty().get().status()).isEqualTo("CHECKED");
            assertThat(systems.challenge().executableProperty().get()).isFalse();

            systems.stopChallenging().execute();
            assertThat(server.engine().policy().browserCheck().alwaysChallengeAsns()).isEmpty();
        }
    }

    @Test
    void withoutAFileThereIsNoTable() {
        model.apply(snapshot(null, List.of()));

        assertThat(model.availableProperty().get()).isFalse();
        assertThat(model.rowsProperty().get()).isEmpty();
    }

    @Test
    void theRowsAreTheSnapshotsInItsOrderAndTheSelectionFollowsItsAs() {
        AsnTableStats table = new AsnTableStats("/var/lib/sluice/ip2asn-combined.tsv", 450_000, 110_000, 78_000);
        model.apply(snapshot(table, List.of(AMAZON, UNNAMED)));

        assertThat(model.availableProperty().get()).isTrue();
        assertThat(model.titleProperty().get()).isEqualTo("Autonomous systems, last minute "
                + "(/var/lib/sluice/ip2asn-combined.tsv: 560,000 ranges, 78,000 systems)");
        assertThat(model.rowsProperty().get()).extracting(AsnViewModel.Row::asn).containsExactly("AS16509",
                "AS64512");
        AsnViewModel.Row amazon = model.rowsProperty().get().get(0);
        assertThat(amazon.share()).isEqualTo("60 %");
        assertThat(amazon.upstream()).isEqualTo("9.00 s");
        assertThat(model.rowsProperty().get().get(1).name()).isEmpty();
        assertThat(model.rowsProperty().get().get(1).upstream()).isEqualTo("0.00 s");

        model.select(0);
        assertThat(model.detailsProperty().get()).isEqualTo("AS16509 AMAZON-02: 12 networks, 400 addresses, 5 user "
                + "agents; busiest 3.5.1.0/24, 3.5.2.0/24, …");

        model.apply(snapshot(table, List.of(UNNAMED, AMAZON)));
        assertThat(model.selectedProperty().get().system().asn()).as("the same AS, wherever it is now")
                .isEqualTo(16509);
        model.apply(snapshot(table, List.of(UNNAMED)));
        assertThat(model.selectedProperty().get().system().asn()).as("kept, to act on, though out of the rows")
                .isEqualTo(16509);
        assertThat(model.detailsProperty().get()).startsWith("AS16509 AMAZON-02");
    }
}
