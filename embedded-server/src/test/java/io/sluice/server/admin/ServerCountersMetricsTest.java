package io.sluice.server.admin;

import static io.sluice.server.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.HostPort;
import io.sluice.server.ServerConfig;
import io.sluice.server.SluiceServer;
import io.sluice.server.testkit.Servers;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code /metrics} shows the access log's dropped lines and the admin listener's connections. */
class ServerCountersMetricsTest {
    @TempDir
    Path state;
    @RegisterExtension
    final Servers servers = new Servers();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aFullDiskUnderTheAccessLogAndAStrangerOnTheAdminListenerAreCounted() throws Exception {
        // /dev/full: every write fails with ENOSPC, as on a full disk.
        SluiceServer server = servers.start(new ServerConfig(new HostPort("127.0.0.1", 0), null,
                new HostPort("127.0.0.1", 0), state, null, true, false, "/dev/full",
                ServerConfig.DEFAULT_UPSTREAM_TIMEOUT, null));
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(server.frontUri().resolve("/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).as("the front end serves on").isEqualTo(200);

        try (Socket stranger = new Socket()) {
            stranger.bind(new InetSocketAddress("127.0.0.9", 0));
            stranger.connect(new InetSocketAddress("127.0.0.1", server.adminUri().getPort()));

            String metrics = awaitMetrics(server, "sluice_access_log_dropped_lines_total{reason=\"write_failed\"} 1.0",
                    "sluice_admin_connections{kind=\"stranger\"} 1.0");

            assertThat(metrics).contains("sluice_access_log_dropped_lines_total{reason=\"queue_full\"} 0.0",
                    "sluice_admin_connections{kind=\"operator\"} 1.0",
                    "sluice_admin_connections_closed_total{reason=\"evicted\"} 0.0",
                    "sluice_automatic_bans_not_made_total{reason=\"limit\"} 0.0",
                    "sluice_automatic_bans_not_made_total{reason=\"queue_full\"} 0.0");
        }
    }

    /** Scrapes until every one of {@code lines} is in the answer (the log is written by its own thread). */
    private String awaitMetrics(SluiceServer server, String... lines) throws Exception {
        await(() -> Arrays.stream(lines).allMatch(scrape(server)::contains), String.join(", ", lines));
        return scrape(server);
    }

    private String scrape(SluiceServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(server.adminUri().resolve("/metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
