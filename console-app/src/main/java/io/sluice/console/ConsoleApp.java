package io.sluice.console;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.layout.BorderPane;
import javafx.stage.Stage;

/** The operator's console window. */
public final class ConsoleApp extends Application {

    @Override
    public void start(Stage stage) {
        stage.setScene(createScene());
        stage.setTitle("Sluice console");
        stage.show();
    }

    static Scene createScene() {
        Label status = new Label("Not connected");
        status.setId("connectionStatus");
        return new Scene(new BorderPane(status), 1280, 800);
    }
}
