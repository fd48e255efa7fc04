package io.sluice.console;

import static org.testfx.assertions.api.Assertions.assertThat;

import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

@ExtendWith(ApplicationExtension.class)
class ConsoleAppTest {

    @Start
    void start(Stage stage) {
        stage.setScene(ConsoleApp.createScene());
        stage.show();
    }

    @Test
    void opensDisconnected(FxRobot robot) {
        assertThat(robot.lookup("#connectionStatus").queryAs(Label.class)).hasText("Not connected");
    }
}
