package io.sluice.console;

import io.sluice.console.audit.AuditView;
import io.sluice.console.bans.BansView;
import io.sluice.console.domains.DomainsView;
import io.sluice.console.fleet.FleetView;
import io.sluice.console.limits.LimitsView;
import io.sluice.console.live.LiveView;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * The rooms of a connected console, in tab order: the one list to change to add a room. The shell takes whatever
 * this gives it. Every room is a {@link Room} made from the session alone, its view loaded with
 * {@code Fxml.load} and its feeds made by the session (so they poll on its one executor and
 * close with it); the limits room carries the what-if panel itself.
 */
public final class Rooms {
    private Rooms() {
    }

    public static List<Room.Factory> standard() {
        return List.of(LiveView::new, FleetView::new, BansView::new, LimitsView::new, DomainsView::new,
                AuditView::new);
    }

    /** Opens every room of {@code factories} on {@code session}; if one fails, those opened are closed. */
    public static List<Room> open(List<Room.Factory> factories, Session session) {
        List<Room> rooms = new ArrayList<>();
        try {
            for (Room.Factory factory : factories) {
                rooms.add(factory.open(session));
            }
            return rooms;
        } catch (RuntimeException e) {
            rooms.forEach(Room::close);
            throw e;
        }
    }
}
