package io.sluice.console.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.testkit.SmallCluster;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.TableRow;
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
class FleetViewTest {
    private static final int PATIENCE_SECONDS = 20;

    private SmallCluster cluster;
    private FleetView view;
    private ExecutorService background;

    @Start
    void start(Stage stage) throws Exception {
        cluster = SmallCluster.start("web-1", "web-2");
        background = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "fleet-test-reader");
            thread.setDaemon(true);
            return thread;
        });
        view = FleetView.load(new FleetViewModel(cluster.client("web-1")::cluster, Platform::runLater, background));
        stage.setScene(new Scene(view.root(), 1400, 700));
        stage.show();
        view.start();
    }

    @AfterEach
    void stop() {
        if (view != null) {
            Platform.runLater(view::dispose);
        }
        if (background != null) {
            background.shutdownNow();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNodeThatGoesSilentIsMarkedUnreachableAndNamedInTheAlerts(FxRobot robot) throws Exception {
        awaitRow(robot, "web-1", NodeHealth.HEALTHY);
        awaitRow(robot, "web-2", NodeHealth.HEALTHY);
        assertThat(robot.lookup(".fleet-alerts").queryAs(ListView.class).isVisible()).isFalse();

        cluster.stop("web-2");

        TableRow<NodeRow> silent = awaitRow(robot, "web-2", NodeHealth.UNREACHABLE);
        assertThat(silent.getItem().state()).isEqualTo("UNREACHABLE");
        assertThat(silent.lookup(".node-state").getStyleClass()).contains("node-unreachable");
        @SuppressWarnings("unchecked")
        ListView<String> alerts = robot.lookup(".fleet-alerts").queryAs(ListView.class);
        assertThat(alerts.isVisible()).isTrue();
        assertThat(alerts.getItems()).anyMatch(alert -> alert.startsWith("web-2 is silent"));
        assertThat(row(robot, "web-1")).map(row -> row.getItem().health()).hasValue(NodeHealth.HEALTHY);
        assertThat(robot.lookup(".fleet-summary").queryAs(Label.class).getText())
                .startsWith("2 nodes · 1 healthy · 1 unreachable");
    }

    @Test
    void aClickOnANodeShowsItsFiguresAndTheTotalsButtonGoesBack(FxRobot robot) throws Exception {
        awaitRow(robot, "web-2", NodeHealth.HEALTHY);
        Label title = robot.lookup(".focus-title").queryAs(Label.class);
        assertThat(title.getText()).startsWith("Cluster: 2 nodes");

        // The table is refreshed every second and may move its rows between a lookup and the click: click the row
        // as it is now until the selection has taken
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> {
            if (!title.getText().equals("web-2 · healthy")) {
                row(robot, "web-2").ifPresent(robot::clickOn);
            }
            return title.getText().equals("web-2 · healthy");
        });
        assertThat(row(robot, "web-2").orElseThrow().getStyleClass()).contains("selected-node");

        robot.clickOn("Cluster totals");
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> title.getText().startsWith("Cluster:"));
    }

    private static TableRow<NodeRow> awaitRow(FxRobot robot, String node, NodeHealth health) throws Exception {
        WaitForAsyncUtils.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS, () -> row(robot, node)
                .filter(row -> row.getItem().health() == health && row.getStyleClass().contains(health.styleClass()))
                .isPresent());
        return row(robot, node).orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Optional<TableRow<NodeRow>> row(FxRobot robot, String node) {
        List<TableRow<NodeRow>> rows = robot.lookup(".fleet-nodes .table-row-cell").queryAll().stream()
                .map(found -> (TableRow<NodeRow>) found).toList();
        return rows.stream().filter(row -> row.getItem() != null && row.getItem().name().equals(node)).findFirst();
    }
}
