package io.sluice.console.ui;

import javafx.scene.Parent;
import javafx.scene.Scene;

/** A window's scene with the console's palette ({@code console.css}), which every room's stylesheet refers to. */
public final class ConsoleScene {
    private ConsoleScene() {
    }

    public static Scene of(Parent root, double width, double height) {
        Scene scene = new Scene(root, width, height);
        scene.getStylesheets().add(stylesheet());
        return scene;
    }

    /** The palette: the looked-up colours. */
    public static String stylesheet() {
        return ConsoleScene.class.getResource("/io/sluice/console/console.css").toExternalForm();
    }
}
