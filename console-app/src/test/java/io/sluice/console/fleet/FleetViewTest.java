package io.sluice.console.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.testkit.SmallCluster;
import io.sluice.console.ui.FxUiExecutor;
import io.sluice.console.ui.Session;
import io.sluice.server.testkit.RealParts;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableRow;
import javafx.scene.shape.Line;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The fleet room against a real small cluster (two front ends on a real redis-server), in a real window. */
@ExtendWith(ApplicationExtension.class)
@RealParts
class FleetViewTest {
    private static final int PATIENCE_SECONDS = 20;

    private Stage stage;
    private SmallCluster cluster;
    private FxUiExecutor ui;
    private Session session;
    private FleetView view;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    /**
     * Starts the cluster and shows the fleet room on it. Called by each test, not by {@code @Start}: a cluster
     * (a redis-server and two front ends) may take longer to start on a busy machine than TestFX gives its setup.
     */
    private void open(FxRobot robot) throws Exception {
        cluster = SmallCluster.start("web-1", "web-2");
        ui = new FxUiExecutor();
        session = new Session("web-1", "admin", cluster.client("web-1"), ui, Clock.systemUTC());
        robot.interact(() -> {
            view = new FleetView(session);
            stage.setScene(new Scene(view.view(), 1400, 700));
            stage.show();
            view.shown();
        });
    }

    @AfterEach
    void stop() {
        if (view != null) {
            Platform.runLater(view::close);
        }
        if (session != null) {
            session.close();
        }
        if (ui != null) {
            ui.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNodeThatGoesSilentIsMarkedUnreachableAndNamedInTheAlerts(FxRobot robot) throws Exception {
        open(robot);
        awaitRow(robot, "web-1", NodeHealth.HEALTHY);
        awaitRow(robot, "web-2", NodeHealth.HEALTHY);
        assertThat(robot.lookup(".fleet-alerts").queryAs(ListView.class).isVisible()).isFalse();

        cluster.stop("web-2");

        TableRow<NodeRow> silent = awaitRow(robot, "web-2", NodeHealth.UNREACHABLE);
        assertThat(onFx(() -> silent.getItem().state())).isEqualTo("UNREACHABLE");
        assertThat(onFx(() -> List.copyOf(silent.lookup(".node-state").getStyleClass()))).contains("node-unreachable");
        @SuppressWarnings("unchecked")
        ListView<String> alerts = robot.lookup(".fleet-alerts").queryAs(ListView.class);
        assertThat(alerts.isVisible()).isTrue();
        assertThat(alerts.getItems()).anyMatch(alert -> alert.startsWith("web-2 is silent"));
        assertThat(onFx(() -> row(robot, "web-1").map(row -> row.getItem().health()))).hasValue(NodeHealth.HEALTHY);
        assertThat(robot.lookup(".fleet-summary").queryAs(Label.class).getText())
                .startsWith("2 nodes · 1 healthy · 1 unreachable");
    }

    @Test
    void aClickOnANodeShowsItsFiguresAndTheTotalsButtonGoesBack(FxRobot robot) throws Exception {
        open(robot);
        awaitRow(robot, "web-2", NodeHealth.HEALTHY);
        Label title = robot.lookup(".focus-title").queryAs(Label.class);
        assertThat(title.getText()).startsWith("Cluster: 2 nodes");

        // The table is refreshed every second and may move its rows between a lookup and the click: click the row
        // as it is now until the selection has taken
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> {
            if (!title.getText().equals("web-2 · healthy")) {
                onFx(() -> row(robot, "web-2")).ifPresent(robot::clickOn);
            }
            return title.getText().equals("web-2 · healthy");
        });
        // the row is restyled at the next pulse after the selection, which a busy machine may be slow to run
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> onFx(() -> row(robot, "web-2")
                .filter(row -> row.getStyleClass().contains("selected-node")).isPresent()));

        // clicked again until it takes, as the row was: a click the FX thread has not handled yet is not lost, but
        // a robot's click on a busy machine can miss a button laid out again under it
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> {
            if (!title.getText().startsWith("Cluster:")) {
                robot.clickOn("Cluster totals");
            }
            return title.getText().startsWith("Cluster:");
        });
    }

    @Test
    void aBanThroughAnotherNodeIsMarkedOnTheFleetsChart(FxRobot robot) throws Exception {
        open(robot);
        awaitRow(robot, "web-1", NodeHealth.HEALTHY);

        cluster.client("web-2").ban("ip", "203.0.113.7", "marked on the fleet", 600L);

        // the chart is the live room's kind: the ban is read from the audit when the fleet's policy version moves,
        // and drawn once its second is in the chart's window (read on the FX thread, which draws the marks)
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(
                () -> robot.lookup("#fleetChart .audit-mark.ban").queryAllAs(Line.class).stream()
                        .anyMatch(Line::isVisible)).get());
    }

    /**
     * Waits for {@code node}'s row to show {@code health}. The table is redrawn on the FX thread as the fleet view
     * is polled, so its rows are looked up there: looked up from the test thread, a redraw in between threw
     * IndexOutOfBoundsException inside the lookup (JDK 25, two CI runs at once).
     */
    private static TableRow<NodeRow> awaitRow(FxRobot robot, String node, NodeHealth health) throws Exception {
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> onFx(() -> row(robot, node)
                .filter(row -> row.getItem().health() == health && row.getStyleClass().contains(health.styleClass()))
                .isPresent()));
        return onFx(() -> row(robot, node).orElseThrow());
    }

    /** What {@code read} returns, read on the FX thread, which redraws the table. */
    private static <T> T onFx(Callable<T> read) throws Exception {
        return WaitForAsyncUtils.asyncFx(read).get();
    }

    /** {@code node}'s row of the table; on the FX thread only. */
    @SuppressWarnings("unchecked")
    private static Optional<TableRow<NodeRow>> row(FxRobot robot, String node) {
        List<TableRow<NodeRow>> rows = robot.lookup(".fleet-nodes .table-row-cell").queryAll().stream()
                .map(found -> (TableRow<NodeRow>) found).toList();
        return rows.stream().filter(row -> row.getItem() != null && row.getItem().name().equals(node)).findFirst();
    }
}
