package io.sluice.console.ui;

import javafx.scene.Parent;

/**
 * A feature of the console, shown as one tab of the shell: live, bans, limits, domains, audit, fleet. The shell
 * knows rooms only through this interface, so a new room is one more entry in the list the shell is given
 * ({@code io.sluice.console.Rooms}), never a change to the shell.
 */
public interface Room extends AutoCloseable {

    /** Makes a room for a session (the entries of the shell's list). */
    @FunctionalInterface
    interface Factory {
        Room open(Session session);
    }

    /** A stable id: the tab's CSS id and what code and tests refer to (never the title, which is for people). */
    String id();

    /** The tab's title. */
    String title();

    /** The room's view, loaded from its FXML. */
    Parent view();

    /** The operator opened the room (its tab was selected): fetch what is only needed while it is seen. */
    default void shown() {
    }

    /** The operator left the room. */
    default void hidden() {
    }

    /** The session ends: stop feeds, remove what the room installed on the server for itself. */
    @Override
    default void close() {
    }
}
