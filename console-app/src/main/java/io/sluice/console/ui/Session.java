package io.sluice.console.ui;

import io.sluice.console.api.AdminClient;
import io.sluice.engine.telemetry.Snapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection to one server, shared by every room: the admin client, the UI executor, the clock, and the
 * live snapshot feed (fetched once a second, whichever rooms show it). A room that needs another feed (the
 * domains, the fleet) makes it with {@link #feed}, and the session closes it with the rest.
 */
public final class Session implements AutoCloseable {
    /** How often the snapshot is fetched. */
    public static final Duration SNAPSHOT_PERIOD = Duration.ofSeconds(1);

    private final String serverName;
    private final String tokenName;
    private final AdminClient client;
    private final UiExecutor ui;
    private final Clock clock;
    private final Feed<Snapshot> snapshots;
    private final List<AutoCloseable> owned = new ArrayList<>();

    /**
     * @param serverName what the operator calls the server (a remembered server's name, or its URL)
     * @param tokenName  the name of the token the console connects with (the audit's "who")
     */
    public Session(String serverName, String tokenName, AdminClient client, UiExecutor ui, Clock clock) {
        this.serverName = serverName;
        this.tokenName = tokenName;
        this.client = client;
        this.ui = ui;
        this.clock = clock;
        this.snapshots = feed(client::snapshot, SNAPSHOT_PERIOD);
    }

    /** A feed of {@code source} every {@code period}, closed with the session; call {@link Feed#start()}. */
    public <T> Feed<T> feed(UiExecutor.Work<T> source, Duration period) {
        Feed<T> feed = new Feed<>(source, period, ui);
        owned.add(feed);
        return feed;
    }

    public String serverName() {
        return serverName;
    }

    public String tokenName() {
        return tokenName;
    }

    public AdminClient client() {
        return client;
    }

    public UiExecutor ui() {
        return ui;
    }

    public Clock clock() {
        return clock;
    }

    /** The live snapshot, once a second; started by the shell. */
    public Feed<Snapshot> snapshots() {
        return snapshots;
    }

    @Override
    public void close() {
        for (AutoCloseable closeable : owned) {
            try {
                closeable.close();
            } catch (Exception e) {
                // closing a feed only cancels its schedule; nothing to report
            }
        }
    }
}
