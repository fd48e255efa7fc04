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
        if (args.length == 1 && args[0].equals("--version")) {
            // without a window: the installer's check, and an operator asking what is installed
            String version = ConsoleLauncher.class.getPackage().getImplementationVersion();
            System.out.println("sluice-console " + (version == null ? "(development build)" : version));
            return;
        }
        Application.launch(ConsoleApp.class, args);
    }
}
