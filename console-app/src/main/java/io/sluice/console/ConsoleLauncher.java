package io.sluice.console;

import javafx.application.Application;

/**
 * Entry point that does not extend {@link Application}, so the console also starts from a plain
 * class path (the JavaFX launcher refuses a main class that is an Application without modules).
 */
public final class ConsoleLauncher {
    private ConsoleLauncher() {
    }

    public static void main(String[] args) {
        Application.launch(ConsoleApp.class, args);
    }
}
