package io.sluice.console.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.console.ui.ConsoleScene;
import io.sluice.engine.RequestClass;
import io.sluice.engine.telemetry.ClientRow;
import io.sluice.engine.telemetry.ClientStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import javafx.geometry.Point2D;
import javafx.geometry.Pos;
import javafx.scene.control.ScrollBar;
import javafx.scene.layout.StackPane;
import javafx.scene.paint.Color;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** The heatmap control: it takes the height it is given and scrolls past the rows that do not fit. */
@ExtendWith(ApplicationExtension.class)
class HeatmapTest {
    private Heatmap heatmap;
    private final List<Integer> clicked = new ArrayList<>();
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        heatmap = new Heatmap();
        StackPane root = new StackPane(heatmap);
        root.getStylesheets().add(LiveView.class.getResource("LiveView.css").toExternalForm());
        heatmap.setOnRowClicked(clicked::add);
        heatmap.rowsProperty().set(IntStream.range(0, 40).mapToObj(HeatmapTest::row).toList());
        stage.setScene(ConsoleScene.of(root, 1000, 22 + 18 * 10));
        stage.show();
    }

    private static ClientRow row(int i) {
        return new ClientRow("10.0.0." + i, "agent " + i, RequestClass.BOT, null, 40 - i, 0, new int[60],
                new int[60], ClientStatus.OK, Instant.EPOCH);
    }

    @Test
    void theRowsThatFitAreDrawnAndAScrollBarReachesTheRest(FxRobot robot) {
        HeatmapSkin skin = (HeatmapSkin) heatmap.getSkin();
        assertThat(skin.fittingRows()).isEqualTo(10);
        ScrollBar scroll = robot.lookup(".heatmap .scroll-bar").queryAs(ScrollBar.class);
        assertThat(scroll.isVisible()).isTrue();
        assertThat(scroll.getMax()).isEqualTo(30);

        robot.interact(() -> stage.setHeight(stage.getHeight() + 18 * 20));
        assertThat(skin.fittingRows()).as("a taller window shows more rows").isEqualTo(30);
        assertThat(scroll.getMax()).isEqualTo(10);
    }

    @Test
    void aClickSelectsTheRowUnderThePointerEvenWhenScrolled(FxRobot robot) {
        robot.interact(() -> robot.lookup(".heatmap .scroll-bar").queryAs(ScrollBar.class).setValue(5));
        robot.clickOn(robot.offset(heatmap, Pos.TOP_LEFT,
                new Point2D(100, 18 * 2 + 9)));

        assertThat(clicked).containsExactly(5 + 2);
    }

    @Test
    void itsColoursComeFromTheStylesheet() {
        assertThat(heatmap.emptyColour()).as("-sluice-panel").isEqualTo(Color.web("#161b22"));
        assertThat(heatmap.colour(20)).as("the top of the viridis ramp").isEqualTo(Color.web("#fde725"));
    }
}
