package io.sluice.console.ui;

import io.sluice.console.api.AdminClient;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.demo.Demo;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** Sessions for ViewModel tests: everything on the test's thread ({@link CurrentThreadUiExecutor}). */
public final class TestSessions {
    /** A fixed instant, for tests whose words depend on the time. */
    public static final Instant NOW = Instant.parse("2026-11-22T12:00:00Z");

    private TestSessions() {
    }

    /** A session whose server is never asked (its feeds are not started; a call would find nothing there). */
    public static Session offline(CurrentThreadUiExecutor ui) {
        return new Session("test", "admin", new AdminClient(URI.create("http://127.0.0.1:9/"), "token", "tester"), ui,
                Clock.fixed(NOW, ZoneOffset.UTC));
    }

    /** A session with a real embedded server through real HTTP, on the test's thread. */
    public static Session on(SluiceServer server, CurrentThreadUiExecutor ui) {
        return new Session("test", "admin", new AdminClient(server.adminUri(), server.adminToken(), "tester"), ui,
                Clock.systemUTC());
    }

    /** A server with the demo site as its upstream (no traffic), its state in {@code state}. */
    public static SluiceServer server(Path state) throws Exception {
        return Demo.start(ServerConfig.demo(state));
    }
}
