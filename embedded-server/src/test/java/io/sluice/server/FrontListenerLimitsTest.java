package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.front.wire.Opened;
import io.sluice.server.front.wire.RawClient;
import io.sluice.server.testkit.Servers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The public listener's per-address cap as {@code SluiceServer} installs it from its {@link ConnectionLimits}, and
 * what it cuts off in the metrics.
 */
class FrontListenerLimitsTest {
    @TempDir
    Path state;

    @RegisterExtension
    final Servers servers = new Servers();
    @AutoClose
    private final Opened open = new Opened();

    @Test
    void aConnectionPastItsAddressesShareIsClosedOnArrivalAndCountedInTheMetrics() throws Exception {
        SluiceServer server = servers.start(ServerConfig.demo(state).withLimits(
                ConnectionLimits.DEFAULTS.withFrontPacing(2, Duration.ofSeconds(30), 500)));
        int port = server.frontUri().getPort();
        open.add(new RawClient("127.0.0.2", port));
        open.add(new RawClient("127.0.0.2", port));

        RawClient third = open.add(new RawClient("127.0.0.2", port));
        assertThat(third.closedByServer()).isTrue();
        RawClient other = open.add(new RawClient("127.0.0.3", port));
        assertThat(other.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").response().status()).isEqualTo(200);

        HttpRequest scrape = HttpRequest.newBuilder(URI.create(server.adminUri() + "metrics"))
                .header("Authorization", "Bearer " + server.adminToken()).build();
        HttpResponse<String> metrics = HttpClient.newHttpClient().send(scrape, HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body()).contains(
                "sluice_front_connections_shed_total{reason=\"over_address_cap\"} 1.0",
                "sluice_front_connections_shed_total{reason=\"head_timeout\"} 0.0");
    }
}
