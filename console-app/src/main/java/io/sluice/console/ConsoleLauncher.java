package io.sluice.console;

import javafx.application.Application;

/**
 * Entry point that does not extend {@link Application}, so the console also starts from a plain
 * class path (the JavaFX launcher refuses a main class that is an Application without modules). The command
 * line is checked here, before the toolkit starts: {@code --help}, {@code --version} and mistakes never open a
 * window.
 */
public final class ConsoleLauncher {
    private ConsoleLauncher() {
    }

    public static void main(String[] args) {
        int exit = ConsoleOptions.handle(args, System.out, System.err);
        if (exit >= 0) {
            System.exit(exit);
        }
        Application.launch(ConsoleApp.class, args);
    }
}
