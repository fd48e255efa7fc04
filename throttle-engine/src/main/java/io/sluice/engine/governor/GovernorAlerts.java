package io.sluice.engine.governor;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/** The governor's alerts (one per give-up): the last {@link #MAX_ALERTS} kept for the snapshot, each told once. */
final class GovernorAlerts {
    static final int MAX_ALERTS = 100;

    private final Deque<GovernorAlert> alerts = new ArrayDeque<>();
    private final AtomicLong ids = new AtomicLong();
    private final List<Consumer<GovernorAlert>> listeners = new CopyOnWriteArrayList<>();

    void raise(Instant at, String domain, String message) {
        GovernorAlert alert = new GovernorAlert(ids.incrementAndGet(), at, domain, message);
        synchronized (alerts) {
            alerts.addFirst(alert);
            while (alerts.size() > MAX_ALERTS) {
                alerts.removeLast();
            }
        }
        listeners.forEach(listener -> listener.accept(alert));
    }

    List<GovernorAlert> newestFirst() {
        synchronized (alerts) {
            return new ArrayList<>(alerts);
        }
    }

    void onAlert(Consumer<GovernorAlert> listener) {
        listeners.add(listener);
    }
}
