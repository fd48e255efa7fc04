package io.sluice.console.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/** A list in a tab that is not selected takes no update until its tab is; then it shows the newest. */
@ExtendWith(ApplicationExtension.class)
class WhileShownTest {
    private final ObservableList<String> modelRows = FXCollections.observableArrayList("a");
    private TabPane tabs;
    private ListView<String> list;
    private WhileShown listShown;

    @Start
    void start(Stage stage) {
        list = new ListView<>();
        listShown = new WhileShown(list);
        list.setItems(listShown.mirror(modelRows));
        tabs = new TabPane(new Tab("first", new Label("in view")), new Tab("list", list));
        stage.setScene(new Scene(tabs, 400, 300));
        stage.show();
    }

    @Test
    void aHiddenListKeepsItsRowsUntilItsTabIsSelectedThenShowsTheNewest(FxRobot robot) {
        robot.interact(() -> {
            modelRows.setAll("b");
            modelRows.setAll("c", "d");
        });
        assertThat(list.getItems()).as("hidden: not updated").containsExactly("a");

        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertThat(list.getItems()).containsExactly("c", "d");

        robot.interact(() -> modelRows.setAll("e"));
        assertThat(list.getItems()).as("shown: updated at once").containsExactly("e");
    }

    @Test
    void onlyTheNewestOfTheUpdatesMadeWhileHiddenRuns(FxRobot robot) {
        List<String> ran = new ArrayList<>();
        robot.interact(() -> {
            listShown.run(() -> ran.add("first"));
            listShown.run(() -> ran.add("second"));
        });
        assertThat(ran).isEmpty();
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertThat(ran).containsExactly("second");
        robot.interact(() -> tabs.getSelectionModel().select(0));
        robot.interact(() -> tabs.getSelectionModel().select(1));
        assertThat(ran).as("nothing pending: nothing runs again").containsExactly("second");
    }

    @Test
    void aNodeInNoSceneIsUpdatedAtOnce(FxRobot robot) {
        List<String> ran = new ArrayList<>();
        robot.interact(() -> new WhileShown(new Label("alone")).run(() -> ran.add("now")));
        assertThat(ran).containsExactly("now");
    }
}
