package io.sluice.console.fleet;

import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import javafx.scene.Parent;

/**
 * The fleet as a room of the shell: every node of the cluster the console is connected to, read once a second
 * while the room is seen (a node alone says so). Reads go through the session's one UI executor, like every
 * other room's.
 */
public final class FleetRoom implements Room {
    private final FleetView view;

    public FleetRoom(Session session) {
        FleetViewModel model = new FleetViewModel(session.client()::cluster, session.ui()::onUiThread,
                session.ui()::background);
        this.view = FleetView.load(model);
    }

    @Override
    public String id() {
        return "fleet";
    }

    @Override
    public String title() {
        return "Fleet";
    }

    @Override
    public Parent view() {
        return view.root();
    }

    @Override
    public void shown() {
        view.start();
    }

    @Override
    public void hidden() {
        view.dispose();
    }

    @Override
    public void close() {
        view.dispose();
    }
}
