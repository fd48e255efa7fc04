package io.sluice.console.ui;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import javafx.fxml.FXMLLoader;
import javafx.scene.Parent;

/**
 * Loads a room's layout: {@code Name.fxml} beside the view class {@code Name}, with the controller the caller
 * made (a view needs its ViewModel, so the FXML's {@code fx:controller} names the class and this supplies the
 * instance) and the room's stylesheet {@code Name.css} when there is one.
 */
public final class Fxml {
    private Fxml() {
    }

    /** The layout of {@code controller}'s class, bound to {@code controller}. */
    public static Parent load(Object controller) {
        Class<?> view = controller.getClass();
        URL layout = view.getResource(view.getSimpleName() + ".fxml");
        if (layout == null) {
            throw new IllegalStateException("no " + view.getSimpleName() + ".fxml beside " + view.getName());
        }
        FXMLLoader loader = new FXMLLoader(layout);
        loader.setControllerFactory(type -> {
            if (!type.isInstance(controller)) {
                throw new IllegalStateException(layout + " names controller " + type.getName() + ", not "
                        + view.getName());
            }
            return controller;
        });
        try {
            Parent root = loader.load();
            URL css = view.getResource(view.getSimpleName() + ".css");
            if (css != null) {
                root.getStylesheets().add(css.toExternalForm());
            }
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load " + layout, e);
        }
    }
}
