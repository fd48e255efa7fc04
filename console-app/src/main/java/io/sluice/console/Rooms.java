package io.sluice.console;

import io.sluice.console.audit.AuditView;
import io.sluice.console.bans.BansView;
import io.sluice.console.domains.DomainsView;
import io.sluice.console.limits.LimitsView;
import io.sluice.console.live.LiveView;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * The rooms of a connected console, in tab order: the one list to change to add a room. The shell takes whatever
 * this gives it.
 *
 * <p>Extension points: a fleet room is one more factory here ({@code FleetView::new}, placed where its tab
 * should be); a what-if preview wraps the limits factory, e.g. {@code session -> { LimitsView limits = new
 * LimitsView(session); WhatIf.attach(limits, session); return limits; }}, using {@link LimitsView#setPreview},
 * the model's {@code candidate()}, {@code editsProperty()}, {@code shownProperty()} and {@code setApplier}.
 */
public final class Rooms {
    private Rooms() {
    }

    public static List<Room.Factory> standard() {
        return List.of(LiveView::new, BansView::new, LimitsView::new, DomainsView::new, AuditView::new);
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
