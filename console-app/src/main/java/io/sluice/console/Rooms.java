package io.sluice.console;

import io.sluice.console.audit.AuditView;
import io.sluice.console.bans.BansView;
import io.sluice.console.domains.DomainsView;
import io.sluice.console.fleet.FleetRoom;
import io.sluice.console.limits.LimitsView;
import io.sluice.console.live.LiveView;
import io.sluice.console.ui.Room;
import io.sluice.console.ui.Session;
import io.sluice.console.whatif.WhatIfView;
import io.sluice.console.whatif.WhatIfViewModel;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Parent;

/**
 * The rooms of a connected console, in tab order: the one list to change to add a room. The shell takes whatever
 * this gives it.
 *
 * <p>The limits room carries the what-if panel ({@link #limitsWithPreview}), in the slot
 * {@link LimitsView#setPreview} keeps for it.
 */
public final class Rooms {
    private Rooms() {
    }

    public static List<Room.Factory> standard() {
        return List.of(LiveView::new, FleetRoom::new, BansView::new, Rooms::limitsWithPreview, DomainsView::new,
                AuditView::new);
    }

    /**
     * The limits room with its what-if panel: Preview installs the edited form as the server's shadow policy and
     * shows what it would refuse that is served now; Apply promotes it; leaving the room removes the shadow.
     */
    static Room limitsWithPreview(Session session) {
        LimitsView limits = new LimitsView(session);
        WhatIfViewModel preview = new WhatIfViewModel(session.client(), session.ui()::onUiThread,
                session.ui()::background);
        WhatIfView panel = WhatIfView.load(preview, () -> limits.model().candidate().policy());
        limits.setPreview(panel.root());
        return new Room() {
            @Override
            public String id() {
                return limits.id();
            }

            @Override
            public String title() {
                return limits.title();
            }

            @Override
            public Parent view() {
                return limits.view();
            }

            @Override
            public void shown() {
                limits.shown();
            }

            @Override
            public void hidden() {
                preview.stop(); // leaving the form: the shadow goes with it
                limits.hidden();
            }

            @Override
            public void close() {
                panel.dispose();
                limits.close();
            }
        };
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
