package io.sluice.console.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.console.api.AdminException;
import io.sluice.console.api.Fleet;
import io.sluice.console.api.FleetNode;
import io.sluice.console.chart.AuditMark;
import io.sluice.console.chart.OperatorMarks;
import io.sluice.console.ui.CurrentThreadUiExecutor;
import io.sluice.console.ui.Feed;
import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.policy.PolicyJson;
import io.sluice.engine.telemetry.ClassCounts;
import io.sluice.engine.telemetry.ClusterState;
import io.sluice.engine.telemetry.SecondCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The fleet room's state without the toolkit: its feed and the audit are read on the calling thread. */
class FleetViewModelTest {
    private static final Instant NOW = Instant.parse("2026-11-23T09:30:00.100Z");
    private static final long SECOND = NOW.getEpochSecond();

    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final List<Object> readings = new ArrayList<>();
    private final List<JsonNode> audit = new ArrayList<>();
    private final AtomicInteger auditReads = new AtomicInteger();
    private final FleetViewModel model = new FleetViewModel(new Feed<>(this::next, FleetView.POLL, ui),
            new OperatorMarks(ui, limit -> {
                auditReads.incrementAndGet();
                return List.copyOf(audit);
            }));

    private Optional<Fleet> next() throws AdminException {
        Object reading = readings.remove(0);
        if (reading instanceof AdminException e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        Optional<Fleet> fleet = (Optional<Fleet>) reading;
        return fleet;
    }

    private void serverAnswers(Fleet fleet) {
        readings.add(Optional.of(fleet));
        model.refresh();
    }

    /** Six seconds of {@code browsers} admitted and {@code refused} bots refused a second, the newest one partial. */
    private static List<SecondCounts> traffic(long browsers, long refused) {
        return LongStream.rangeClosed(SECOND - 5, SECOND).mapToObj(s -> new SecondCounts(s, Map.of(
                RequestClass.BROWSER, new ClassCounts(s == SECOND ? 1 : browsers, 0, Map.of()),
                RequestClass.BOT, new ClassCounts(0, 0, Map.of(Reason.HIT_STACK, s == SECOND ? 1 : refused)))))
                .toList();
    }

    private static FleetNode node(String name, FleetNode.State state, long inFlight, Instant lastHeard,
                                  List<SecondCounts> seconds) {
        return new FleetNode(name, "http://127.0.0.1:9090/", state, lastHeard, inFlight, 42, NOW.minusSeconds(3600),
                seconds);
    }

    private static Fleet fleet(ClusterState state, boolean stale, FleetNode... nodes) {
        long reachable = List.of(nodes).stream().filter(n -> n.state() != FleetNode.State.UNREACHABLE).count();
        return new Fleet("web-1", state, NOW, stale, "redis://redis.internal:6379", List.of(nodes),
                new Fleet.Totals(nodes.length, (int) reachable, 30, traffic(30, 6)));
    }

    @Test
    void everyNodeWithItsStateLoadAndRatesAndTheClusterTotalsByDefault() {
        serverAnswers(fleet(ClusterState.HEALTHY, false,
                node("web-1", FleetNode.State.HEALTHY, 12, NOW.minusMillis(50), traffic(20, 4)),
                node("web-2", FleetNode.State.HEALTHY, 18, NOW.minusMillis(80), traffic(10, 2))));

        assertThat(model.nodes()).extracting(NodeRow::name, NodeRow::health, NodeRow::inFlight, NodeRow::requests,
                NodeRow::refused, NodeRow::lastHeard).containsExactly(
                        tuple("web-1", NodeHealth.HEALTHY, 12L, "24/s", "4.0/s", "0.1 s ago"),
                        tuple("web-2", NodeHealth.HEALTHY, 18L, "12/s", "2.0/s", "0.1 s ago"));
        assertThat(model.nodes()).noneMatch(NodeRow::attention);
        assertThat(model.alerts()).isEmpty();
        assertThat(model.summaryProperty().get()).isEqualTo("2 nodes · 2 healthy · Redis redis://redis.internal:6379");
        assertThat(model.redisDegradedProperty().get()).isFalse();
        // totals: 30 browsers and 6 refused bots a second, the partial newest second left out
        assertThat(model.selectedProperty().get()).isNull();
        assertThat(model.focusTitleProperty().get()).isEqualTo("Cluster: 2 nodes, 2 reachable");
        assertThat(model.focusInFlightProperty().get()).isEqualTo("30");
        assertThat(model.focusRequestsProperty().get()).isEqualTo("36/s");
        assertThat(model.focusRefusedProperty().get()).isEqualTo("6.0/s");
        assertThat(model.focusClasses()).extracting(FleetViewModel.ClassRow::requestClass,
                FleetViewModel.ClassRow::refused).containsExactly(
                        tuple(RequestClass.BROWSER, "0.0/s"),
                        tuple(RequestClass.BOT, "6.0/s"));
    }

    @Test
    void aClickShowsOneNodeAndTheSelectionSurvivesTheNextReading() {
        Fleet fleet = fleet(ClusterState.HEALTHY, false,
                node("web-1", FleetNode.State.HEALTHY, 12, NOW, traffic(20, 4)),
                node("web-2", FleetNode.State.HEALTHY, 18, NOW, traffic(10, 2)));
        serverAnswers(fleet);

        model.select("web-2");
        assertThat(model.focusTitleProperty().get()).isEqualTo("web-2 · healthy");
        assertThat(model.focusInFlightProperty().get()).isEqualTo("18");
        assertThat(model.focusRequestsProperty().get()).isEqualTo("12/s");
        serverAnswers(fleet);
        assertThat(model.focusTitleProperty().get()).isEqualTo("web-2 · healthy");

        model.showTotals();
        assertThat(model.focusTitleProperty().get()).startsWith("Cluster:");
        assertThat(model.focusInFlightProperty().get()).isEqualTo("30");
    }

    @Test
    void aSilentNodeStandsOutAndItsRatesAreNotPassedOffAsCurrent() {
        serverAnswers(fleet(ClusterState.HEALTHY, false,
                node("web-1", FleetNode.State.HEALTHY, 12, NOW, traffic(20, 4)),
                node("web-2", FleetNode.State.UNREACHABLE, 9, NOW.minusSeconds(12), List.of())));

        NodeRow silent = model.nodes().get(1);
        assertThat(silent.health()).isEqualTo(NodeHealth.UNREACHABLE);
        assertThat(silent.state()).isEqualTo("UNREACHABLE");
        assertThat(silent.attention()).isTrue();
        assertThat(silent.requests()).isEqualTo("—");
        assertThat(silent.lastHeard()).isEqualTo("12 s ago");
        assertThat(model.alerts()).containsExactly("web-2 is silent: not heard from for 12 s (stopped, cut off from "
                + "Redis, or gone); its load no longer counts");
        assertThat(model.summaryProperty().get()).startsWith("2 nodes · 1 healthy · 1 unreachable");

        model.select("web-2");
        assertThat(model.focusTitleProperty().get()).isEqualTo("web-2 · UNREACHABLE");
        assertThat(model.focusInFlightProperty().get()).isEqualTo("9 (last reported)");
        assertThat(model.focusRequestsProperty().get()).isEqualTo("—");
    }

    @Test
    void aDegradedRedisAndADegradedNodeAreFlagged() {
        serverAnswers(fleet(ClusterState.DEGRADED, true,
                node("web-1", FleetNode.State.DEGRADED, 12, NOW, traffic(20, 4)),
                node("web-2", FleetNode.State.HEALTHY, 3, NOW, traffic(1, 0))));

        assertThat(model.redisDegradedProperty().get()).isTrue();
        assertThat(model.nodes().get(0).health()).isEqualTo(NodeHealth.DEGRADED);
        assertThat(model.nodes().get(0).attention()).isTrue();
        assertThat(model.alerts()).hasSize(3);
        assertThat(model.alerts().get(0)).startsWith("Redis is slow or unreachable from web-1");
        assertThat(model.alerts().get(1)).startsWith("This view is stale: web-1 could not read Redis");
        assertThat(model.alerts().get(2)).isEqualTo(
                "web-1 is degraded: its link to Redis is slow or lost, it serves on its local state");
    }

    @Test
    void aNodeOnAnOlderPolicyVersionIsFlagged() {
        FleetNode behind = new FleetNode("web-2", "http://127.0.0.1:9091/", FleetNode.State.HEALTHY, NOW, 0, 41,
                NOW, List.of());
        serverAnswers(fleet(ClusterState.HEALTHY, false, node("web-1", FleetNode.State.HEALTHY, 1, NOW, List.of()),
                behind));
        assertThat(model.nodes().get(1).policyVersion()).isEqualTo("v41 (behind)");
        assertThat(model.nodes().get(1).attention()).isTrue();
        assertThat(model.alerts()).containsExactly("web-2 runs policy v41, the newest is v42");
    }

    @Test
    void aServerRunningAloneSaysSoAndAFailedReadingKeepsTheLastOne() {
        readings.add(Optional.empty());
        model.refresh();
        assertThat(model.standaloneProperty().get()).isTrue();
        assertThat(model.summaryProperty().get()).contains("runs alone");
        assertThat(model.nodes()).isEmpty();

        serverAnswers(fleet(ClusterState.HEALTHY, false, node("web-1", FleetNode.State.HEALTHY, 1, NOW, List.of())));
        readings.add(new AdminException(AdminException.Kind.UNREACHABLE, "cannot reach http://127.0.0.1:9090"));
        model.refresh();
        assertThat(model.errorProperty().get()).isEqualTo("cannot reach http://127.0.0.1:9090");
        assertThat(model.nodes()).extracting(NodeRow::name).containsExactly("web-1");
        assertThat(model.standaloneProperty().get()).isFalse();
    }

    @Test
    void theFleetIsReadOnlyWhileTheRoomIsSeen() {
        model.start();
        readings.add(Optional.empty());
        ui.tick();
        assertThat(readings).as("read once a period while seen").isEmpty();

        model.stop();
        readings.add(Optional.empty());
        ui.tick();
        assertThat(readings).as("not read once the room was left").hasSize(1);

        model.start();
        ui.tick();
        assertThat(readings).isEmpty();
    }

    @Test
    void theChartShowsTheLastMinuteAndTheOperatorsActionsReadWhenThePolicyChanges() throws Exception {
        audit.add(PolicyJson.mapper().readTree("{\"seq\":7,\"at\":\"" + NOW.minusSeconds(20)
                + "\",\"who\":\"admin\",\"action\":\"ban.add\",\"detail\":\"ip 203.0.113.7\"}"));
        Fleet fleet = fleet(ClusterState.HEALTHY, false, node("web-1", FleetNode.State.HEALTHY, 12, NOW,
                traffic(20, 4)));
        serverAnswers(fleet);

        assertThat(model.chartEndProperty().get()).as("the newest complete second").isEqualTo(SECOND - 1);
        assertThat(model.focusSecondsProperty().get()).extracting(FleetViewModel.SecondRate::epochSecond,
                FleetViewModel.SecondRate::requests, FleetViewModel.SecondRate::refused)
                .startsWith(tuple(SECOND - 5, 36L, 6L));
        assertThat(model.marks()).singleElement().satisfies(mark -> {
            assertThat(mark.kind()).isEqualTo(AuditMark.Kind.BAN);
            assertThat(mark.epochSecond()).isEqualTo(SECOND - 20);
        });

        serverAnswers(fleet);
        assertThat(auditReads).as("the same policy version: the audit is not read again").hasValue(1);
        serverAnswers(new Fleet("web-1", ClusterState.HEALTHY, NOW, false, "redis://redis.internal:6379",
                List.of(new FleetNode("web-1", "http://127.0.0.1:9090/", FleetNode.State.HEALTHY, NOW, 0, 43,
                        NOW.minusSeconds(3600), List.of())), fleet.totals()));
        assertThat(auditReads).as("a newer policy version: the audit is read").hasValue(2);
    }

    @Test
    void anUnknownStateFromANewerServerIsShownAsUnknownNotDropped() {
        serverAnswers(fleet(ClusterState.HEALTHY, false, node("web-9", null, 0, NOW, List.of())));
        assertThat(model.nodes()).singleElement().satisfies(row -> {
            assertThat(row.health()).isEqualTo(NodeHealth.UNKNOWN);
            assertThat(row.attention()).isTrue();
        });
    }
}
